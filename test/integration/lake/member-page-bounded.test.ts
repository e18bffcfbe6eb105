import { describe, expect, it } from 'vitest';
import { linkMembers, readMemberPage } from '../../../lake/index.js';
import { contentMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const G1 = '120363000000000511@g.us';
const G2 = '120363000000000512@g.us';
const ANA = '100000000000061@lid';
const ANA_PHONE = '5500000000061@s.whatsapp.net';
const ANA_2 = '100000000000062@lid';
const BEA = '100000000000063@lid';
const CAIO = '100000000000064@lid';
const DANI = '100000000000065@lid';
/** 2024-03-04 12:00 in São Paulo. */
const T = Date.parse('2024-03-04T15:00:00Z') / 1000;
const MIN = 60;
const HOUR = 3600;
const DAY = 86_400;

function said(group: string, id: string, sender: string, t: number, text: string, replyTo?: string): Body {
  const contextInfo = replyTo ? { stanzaId: replyTo, participant: sender } : {};
  return contentMessage({ group, id, sender }, t, { extendedTextMessage: { text, contextInfo } });
}

/** Conversations started and answered in both groups, by reply, by the next message, days later and never. */
function scenario(): Body[] {
  return [
    {
      type: 'group-participants.update',
      chat_jid: G1,
      captured_at: new Date((T - DAY) * 1000).toISOString(),
      payload: { id: G1, action: 'add', participants: [{ id: DANI, admin: null }] },
    },
    { type: 'lid-mapping.update', chat_jid: null, payload: { lid: ANA, pn: ANA_PHONE } },
    said(G1, 'A1', ANA, T, 'Anyone knows the venue?'),
    said(G1, 'A2', ANA, T + 5 * MIN, 'the new one'),
    said(G1, 'B1', BEA, T + 30 * MIN, 'At the library', 'A1'),
    said(G1, 'C1', CAIO, T + 3 * HOUR, 'what time?'),
    said(G1, 'D1', DANI, T + 8 * HOUR, 'hello all'),
    said(G1, 'B2', BEA, T + 33 * HOUR, 'welcome!', 'D1'),
    said(G2, 'A3', ANA_PHONE, T + DAY, 'ok?'),
    said(G2, 'N1', ANA_2, T + DAY + 5 * MIN, 'yes', 'A3'),
    said(G2, 'B3', BEA, T + 2 * DAY, 'run on Sunday?'),
    said(G2, 'A4', ANA, T + 4 * DAY, 'sure', 'B3'),
    said(G2, 'C2', CAIO, T + 4 * DAY + 2 * HOUR, 'me too'),
    said(G2, 'B4', BEA, T + 4 * DAY + 2 * HOUR + 7 * MIN, 'great'),
  ];
}

const fresh = useFreshLake();

describe('member page reads (ADR 0025, bounded reads)', () => {
  it('gives each person the conversations, unanswered messages and replies the views give, in every group filter', async () => {
    const { pool } = fresh.lake;
    await linkMembers(
      pool,
      [
        { participantId: ANA, memberId: 'discord:ana' },
        { participantId: ANA_2, memberId: 'discord:ana' },
      ],
      'cli'
    );
    for (const [index, body] of scenario().entries())
      await fresh.lake.store(`00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, JSON.stringify(body));

    for (const participantId of [ANA, ANA_2, BEA, CAIO, DANI]) {
      for (const groupJid of [null, G1, G2]) {
        const page = await readMemberPage(pool, { participantId, groupJid, from: null, to: null });
        if (page === null) throw new Error(`no page for ${participantId}`);
        expect(page.to).toBe('2024-03-08');
        const ids = page.participants.map((p) => p.participantId);
        const scope = [ids, page.from, page.to, groupJid];
        const filter = 'sender_id = ANY($1) AND day BETWEEN $2 AND $3 AND ($4::text IS NULL OR group_jid = $4)';
        const conversations = await pool.query(
          `SELECT count(*)::int AS started, count(first_response_at)::int AS answered,
                  (percentile_cont(0.5) WITHIN GROUP (ORDER BY response_seconds) / 60.0)::float8 AS "medianMinutes"
             FROM engagement_first_responses WHERE ${filter}`,
          scope
        );
        expect(page.conversations).toEqual(conversations.rows[0]);
        const unanswered = await pool.query(
          `SELECT group_jid AS "groupJid", message_id AS "messageId",
                  to_char(sent_at AT TIME ZONE wa_engagement_time_zone(), 'YYYY-MM-DD HH24:MI') AS "sentAt",
                  is_question AS "isQuestion", is_newcomer_first AS "isNewcomerFirst"
             FROM engagement_unanswered WHERE ${filter} ORDER BY sent_at DESC LIMIT 20`,
          scope
        );
        expect(page.unanswered).toEqual(unanswered.rows);
        const window = `(sent_at AT TIME ZONE wa_engagement_time_zone())::date BETWEEN $2 AND $3
                        AND ($4::text IS NULL OR group_jid = $4)`;
        const replies = await pool.query(
          `WITH edges AS (
             SELECT target_participant_id AS other, (kind = 'reply')::int AS rg, (kind = 'mention')::int AS mg,
                    0 AS rr, 0 AS mr
               FROM engagement_reply_edges WHERE sender_id = ANY($1) AND ${window}
             UNION ALL
             SELECT sender_id, 0, 0, (kind = 'reply')::int, (kind = 'mention')::int
               FROM engagement_reply_edges WHERE target_participant_id = ANY($1) AND ${window})
           SELECT e.other AS "participantId", COALESCE(n.display_name, e.other) AS "displayName",
                  COALESCE(n.display_name_source = 'phone', false) AS "displayNameIsPhone",
                  sum(rg)::int AS "repliesGiven", sum(mg)::int AS "mentionsGiven", sum(rr)::int AS "repliesReceived",
                  sum(mr)::int AS "mentionsReceived"
             FROM edges e LEFT JOIN whatsapp_participant_display_names n ON n.participant_id = e.other
            WHERE e.other IS NOT NULL AND e.other <> ALL($1)
            GROUP BY 1, 2, 3 ORDER BY sum(rg + mg + rr + mr) DESC, 1 LIMIT 20`,
          scope
        );
        expect(page.replies).toEqual(replies.rows);
      }
    }
    const ana = await readMemberPage(pool, { participantId: ANA, groupJid: null, from: null, to: null });
    expect(ana?.conversations.started).toBeGreaterThan(1);
    expect(ana?.unanswered.length).toBeGreaterThan(0);
    expect(ana?.replies.map((r) => [r.repliesGiven, r.repliesReceived])).toContainEqual([1, 1]);
  });
});
