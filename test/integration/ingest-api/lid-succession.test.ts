import { describe, expect, it } from 'vitest';
import { linkMembers, readEngagementReport, rebuildProjections } from '../../../lake/index.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLakes } from '../../helpers/lake-databases.js';

const G1 = '120363000000000801@g.us';
const ANA_OLD = '100000000000081@lid';
const ANA_NEW = '100000000000082@lid';
const ANA_PHONE = '5500000000081@s.whatsapp.net';
const BEA = '100000000000083@lid';
const MIN = 60;
/** Day d of March 2024 at 12:00 in São Paulo. */
const march = (day: number): number => Date.parse('2024-03-01T15:00:00Z') / 1000 + (day - 1) * 86_400;

/**
 * The example of docs/engagement.md "One person across LIDs": Ana writes from her number under one LID until
 * 1 March, then WhatsApp gives the number a new LID (10 March); a message sent from the number alone comes on the
 * 12th; on the 20th her old LID starts a conversation (a device that still knew it) and the new one answers first.
 */
function scenario(): { eventId: string; body: Body }[] {
  const say = (id: string, sender: string, t: number, options: { alt?: string; replyTo?: string } = {}): Body =>
    textMessage(
      { group: G1, id, sender, ...(options.alt ? { senderAlt: options.alt } : {}) },
      t,
      options.replyTo ? { replyTo: options.replyTo } : {}
    );
  const bodies: Body[] = [
    say('O1', ANA_OLD, march(1), { alt: ANA_PHONE }),
    say('B1', BEA, march(1) + 10 * MIN, { replyTo: 'O1' }),
    say('N1', ANA_NEW, march(10), { alt: ANA_PHONE }),
    say('N2', ANA_NEW, march(10) + 5 * MIN, { alt: ANA_PHONE }),
    say('B2', BEA, march(10) + 20 * MIN),
    say('P1', ANA_PHONE, march(12)),
    say('O2', ANA_OLD, march(20)),
    say('N3', ANA_NEW, march(20) + 3 * MIN),
    say('B3', BEA, march(20) + 30 * MIN),
  ];
  return bodies.map((body, index) => ({ eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, body }));
}

const fresh = useFreshLakes(2);

async function read(index: number): Promise<Record<string, unknown>> {
  const pool = fresh.at(index).lake.pool;
  const q = async (sql: string): Promise<Record<string, unknown>[]> =>
    (await pool.query<Record<string, unknown>>(sql)).rows;
  const report = await readEngagementReport(pool, {
    groupJid: null,
    from: '2024-03-01',
    to: '2024-03-31',
    lurkerDays: 30,
    topMembers: 10,
  });
  return {
    successions: await q(`SELECT lid, successor_lid, phone_jid FROM whatsapp_lid_successions ORDER BY lid`),
    persons: await q(
      `SELECT participant_id, person_lid, member_id, person_key FROM whatsapp_person_identities ORDER BY 1`
    ),
    people: await q(
      `SELECT person_key, sum(messages)::int AS messages FROM engagement_member_activity_days GROUP BY 1 ORDER BY 1`
    ),
    responses: await q(
      `SELECT message_id, person_key, first_response_id FROM engagement_first_responses ORDER BY started_at`
    ),
    levels: await q(`SELECT DISTINCT person_key FROM engagement_member_levels ORDER BY 1`),
    activeMembers: report.totals.activeMembers,
    topMembers: report.topMembers.map((m) => [m.participantId, m.participantIds, m.memberId, m.messages]),
  };
}

describe('one person across LIDs (ADR 0020, ADR 0025)', () => {
  it('links two LIDs owned in turn by one phone number and counts them once, the same by replay, order and rebuild', async () => {
    const events = scenario();
    for (const [index, order] of [events, [...events].reverse()].entries())
      for (let round = 0; round < 2; round += 1)
        for (const { eventId, body } of order) await fresh.at(index).lake.store(eventId, JSON.stringify(body));
    const first = await read(0);
    expect(first).toEqual({
      successions: [{ lid: ANA_OLD, successor_lid: ANA_NEW, phone_jid: ANA_PHONE }],
      persons: [
        { participant_id: ANA_OLD, person_lid: ANA_NEW, member_id: null, person_key: ANA_NEW },
        { participant_id: ANA_NEW, person_lid: ANA_NEW, member_id: null, person_key: ANA_NEW },
      ],
      people: [
        { person_key: ANA_NEW, messages: 6 },
        { person_key: BEA, messages: 3 },
      ],
      // The new LID's message three minutes after the old one's is Ana answering herself: Bea's is the response.
      responses: [
        { message_id: 'O1', person_key: ANA_NEW, first_response_id: 'B1' },
        { message_id: 'N1', person_key: ANA_NEW, first_response_id: 'B2' },
        { message_id: 'P1', person_key: ANA_NEW, first_response_id: null },
        { message_id: 'O2', person_key: ANA_NEW, first_response_id: 'B3' },
      ],
      levels: [{ person_key: ANA_NEW }, { person_key: BEA }],
      activeMembers: 2,
      topMembers: [
        [ANA_NEW, [ANA_OLD, ANA_NEW], null, 6],
        [BEA, [BEA], null, 3],
      ],
    });
    expect(await read(1)).toEqual(first);
    await rebuildProjections(fresh.at(1).lake.pool);
    expect(await read(1)).toEqual(first);
  });

  it('gives the whole succession the member id either LID is linked to; an own link of the other LID wins', async () => {
    const pool = fresh.at(0).lake.pool;
    await linkMembers(pool, [{ participantId: ANA_OLD, memberId: 'discord:ana' }], 'cli');
    const persons = async (): Promise<unknown[]> =>
      (
        await pool.query<Record<string, unknown>>(
          `SELECT participant_id, person_key FROM whatsapp_person_identities ORDER BY 1`
        )
      ).rows;
    expect(await persons()).toEqual([
      { participant_id: ANA_OLD, person_key: 'discord:ana' },
      { participant_id: ANA_NEW, person_key: 'discord:ana' },
    ]);
    await linkMembers(pool, [{ participantId: ANA_NEW, memberId: 'discord:other' }], 'cli');
    expect(await persons()).toEqual([
      { participant_id: ANA_OLD, person_key: 'discord:ana' },
      { participant_id: ANA_NEW, person_key: 'discord:other' },
    ]);
  });
});
