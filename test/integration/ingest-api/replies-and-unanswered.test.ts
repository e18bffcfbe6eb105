import { describe, expect, it } from 'vitest';
import { linkMembers, readFirstResponseSummary, rebuildProjections } from '../../../lake/index.js';
import { contentMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLakes } from '../../helpers/lake-databases.js';

const G1 = '120363000000000501@g.us';
const G2 = '120363000000000502@g.us';
const ANA = '100000000000051@lid';
const ANA_PHONE = '5500000000051@s.whatsapp.net';
const ANA_2 = '100000000000052@lid';
const BEA = '100000000000053@lid';
const CAIO = '100000000000054@lid';
const DANI = '100000000000055@lid';
const EVA = '100000000000056@lid';
/** 2024-03-04 12:00 in São Paulo. */
const T = Date.parse('2024-03-04T15:00:00Z') / 1000;
const MIN = 60;
const HOUR = 3600;

interface Said {
  replyTo?: { id: string; author: string };
  mentions?: string[];
  /** Wrap the content in `ephemeralMessage` (a disappearing-messages group). */
  ephemeral?: boolean;
}

/** A text message with its text, as a member types it (WAProto `extendedTextMessage`). */
function said(group: string, id: string, sender: string, t: number, text: string, options: Said = {}): Body {
  const contextInfo = {
    ...(options.replyTo ? { stanzaId: options.replyTo.id, participant: options.replyTo.author } : {}),
    ...(options.mentions ? { mentionedJid: options.mentions } : {}),
  };
  const content = { extendedTextMessage: { text, contextInfo } };
  return contentMessage(
    { group, id, sender },
    t,
    options.ephemeral ? { ephemeralMessage: { message: content } } : content
  );
}

const joined = (group: string, who: string, t: number): Body => ({
  type: 'group-participants.update',
  chat_jid: group,
  captured_at: new Date(t * 1000).toISOString(),
  payload: { id: group, action: 'add', participants: [{ id: who, admin: null }] },
});

/** The examples of docs/engagement.md "Replies" and "Unanswered". */
function scenario(): { eventId: string; body: Body }[] {
  const bodies: Body[] = [
    joined(G1, DANI, T - 86_400),
    { type: 'lid-mapping.update', chat_jid: null, payload: { lid: ANA, pn: ANA_PHONE } },
    // G1 12:00 Ana asks and Bea quotes her at 12:30: answered.
    said(G1, 'Q1', ANA, T, 'Anyone knows the venue?'),
    said(G1, 'R1', BEA, T + 30 * MIN, 'At the library', { replyTo: { id: 'Q1', author: ANA } }),
    // 12:40 Eva asks in the middle of the conversation; nobody quotes or mentions her: unanswered.
    said(G1, 'Q2', EVA, T + 40 * MIN, 'what time? '),
    // 12:50 Bea mentions Ana by phone number (her LID owns it).
    said(G1, 'M1', BEA, T + 50 * MIN, '@Ana see above', { mentions: [ANA_PHONE] }),
    // 12:55 Caio mentions the group (a question by rule); 13:00 Bea mentions Caio: answered after 5 minutes.
    said(G1, 'Q4', CAIO, T + 55 * MIN, '@everyone look', { mentions: [G1] }),
    said(G1, 'M2', BEA, T + 60 * MIN, '@Caio at 7', { mentions: [CAIO] }),
    // 20:00 Dani, who joined yesterday, says hello; Bea quotes him 25 hours later: unanswered within 24 h.
    said(G1, 'D1', DANI, T + 8 * HOUR, 'hello all'),
    said(G1, 'R2', BEA, T + 33 * HOUR, 'welcome!', { replyTo: { id: 'D1', author: DANI } }),
    // G2: Ana asks (disappearing messages on), only her second account answers: unanswered.
    said(G2, 'Q3', ANA, T, 'ok?', { ephemeral: true }),
    said(G2, 'R3', ANA_2, T + 5 * MIN, 'yes', { replyTo: { id: 'Q3', author: ANA } }),
    // 14:00 Eva starts a conversation with a full-width question mark; Bea's next message answers it.
    said(G2, 'Q5', EVA, T + 2 * HOUR, 'Quem vem？'),
    said(G2, 'R5', BEA, T + 2 * HOUR + 10 * MIN, 'eu'),
  ];
  return bodies.map((body, index) => ({ eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, body }));
}

const fresh = useFreshLakes(2);

interface Read {
  edges: Record<string, unknown>[];
  graph: Record<string, unknown>[];
  candidates: Record<string, unknown>[];
  unanswered: Record<string, unknown>[];
}

async function read(index: number): Promise<Read> {
  const q = async (sql: string): Promise<Record<string, unknown>[]> =>
    (await fresh.at(index).lake.pool.query<Record<string, unknown>>(sql)).rows;
  return {
    edges: await q(
      `SELECT group_jid, message_id, sender_id, kind, target_message_id, target_participant_id
         FROM engagement_reply_edges ORDER BY 1, 2, 6`
    ),
    graph: await q(
      `SELECT group_jid, from_participant_id, to_participant_id, replies, mentions
         FROM engagement_reply_graph ORDER BY 1, 2, 3`
    ),
    candidates: await q(
      `SELECT group_jid, message_id, sender_id, is_question, is_newcomer_first, response_seconds
         FROM engagement_unanswered_candidates ORDER BY 1, 2`
    ),
    unanswered: await q(`SELECT group_jid, message_id, response_seconds FROM engagement_unanswered ORDER BY 1, 2`),
  };
}

describe('reply graph and unanswered list (ADR 0020)', () => {
  it('draws replies and mentions and lists unanswered questions and first messages, the same by replay, order and rebuild', async () => {
    const events = scenario();
    for (const [index, order] of [events, [...events].reverse()].entries()) {
      await linkMembers(
        fresh.at(index).lake.pool,
        [
          { participantId: ANA, memberId: 'discord:ana' },
          { participantId: ANA_2, memberId: 'discord:ana' },
        ],
        'cli'
      );
      for (const { eventId, body } of order) await fresh.at(index).lake.store(eventId, JSON.stringify(body));
      for (const { eventId, body } of order) await fresh.at(index).lake.store(eventId, JSON.stringify(body));
    }
    const first = await read(0);
    expect(first.edges).toEqual([
      {
        group_jid: G1,
        message_id: 'M1',
        sender_id: BEA,
        kind: 'mention',
        target_message_id: null,
        target_participant_id: ANA,
      },
      {
        group_jid: G1,
        message_id: 'M2',
        sender_id: BEA,
        kind: 'mention',
        target_message_id: null,
        target_participant_id: CAIO,
      },
      {
        group_jid: G1,
        message_id: 'R1',
        sender_id: BEA,
        kind: 'reply',
        target_message_id: 'Q1',
        target_participant_id: ANA,
      },
      {
        group_jid: G1,
        message_id: 'R2',
        sender_id: BEA,
        kind: 'reply',
        target_message_id: 'D1',
        target_participant_id: DANI,
      },
      {
        group_jid: G2,
        message_id: 'R3',
        sender_id: ANA_2,
        kind: 'reply',
        target_message_id: 'Q3',
        target_participant_id: ANA,
      },
    ]);
    expect(first.graph).toEqual([
      { group_jid: G1, from_participant_id: BEA, to_participant_id: ANA, replies: 1, mentions: 1 },
      { group_jid: G1, from_participant_id: BEA, to_participant_id: CAIO, replies: 0, mentions: 1 },
      { group_jid: G1, from_participant_id: BEA, to_participant_id: DANI, replies: 1, mentions: 0 },
      { group_jid: G2, from_participant_id: ANA_2, to_participant_id: ANA, replies: 1, mentions: 0 },
    ]);
    expect(first.candidates).toEqual([
      {
        group_jid: G1,
        message_id: 'D1',
        sender_id: DANI,
        is_question: false,
        is_newcomer_first: true,
        response_seconds: '90000',
      },
      {
        group_jid: G1,
        message_id: 'Q1',
        sender_id: ANA,
        is_question: true,
        is_newcomer_first: false,
        response_seconds: '1800',
      },
      {
        group_jid: G1,
        message_id: 'Q2',
        sender_id: EVA,
        is_question: true,
        is_newcomer_first: false,
        response_seconds: null,
      },
      {
        group_jid: G1,
        message_id: 'Q4',
        sender_id: CAIO,
        is_question: true,
        is_newcomer_first: false,
        response_seconds: '300',
      },
      {
        group_jid: G2,
        message_id: 'Q3',
        sender_id: ANA,
        is_question: true,
        is_newcomer_first: false,
        response_seconds: null,
      },
      {
        group_jid: G2,
        message_id: 'Q5',
        sender_id: EVA,
        is_question: true,
        is_newcomer_first: false,
        response_seconds: '600',
      },
    ]);
    expect(first.unanswered).toEqual([
      { group_jid: G1, message_id: 'D1', response_seconds: '90000' },
      { group_jid: G1, message_id: 'Q2', response_seconds: null },
      { group_jid: G2, message_id: 'Q3', response_seconds: null },
    ]);
    expect(await read(1)).toEqual(first);
    await rebuildProjections(fresh.at(1).lake.pool);
    expect(await read(1)).toEqual(first);
    expect(await readFirstResponseSummary(fresh.at(0).lake.pool)).toMatchObject({ unanswered: 3 });
  });
});
