import { describe, expect, it } from 'vitest';
import { linkMembers, readFirstResponseSummary, rebuildProjections } from '../../../lake/index.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLakes } from '../../helpers/lake-databases.js';

const G1 = '120363000000000401@g.us';
const G2 = '120363000000000402@g.us';
const ANA = '100000000000031@lid';
const BEA = '100000000000032@lid';
const CAIO = '100000000000033@lid';
const ANA_2 = '100000000000034@lid';
/** 2024-03-04 12:00 in São Paulo. */
const T = Date.parse('2024-03-04T15:00:00Z') / 1000;
const MIN = 60;

/** The examples of docs/engagement.md "First response". */
function scenario(): { eventId: string; body: Body }[] {
  const bodies: Body[] = [
    // G1 12:00 Ana starts; 12:01 Ana again (same person); 12:10 Bea answers: 10 minutes.
    textMessage({ group: G1, id: 'S1', sender: ANA }, T),
    textMessage({ group: G1, id: 'S1b', sender: ANA }, T + MIN),
    textMessage({ group: G1, id: 'R1', sender: BEA }, T + 10 * MIN),
    // 14:00 Caio starts (2 h of quiet); 14:30 Ana's second account (linked to the same member) is no answer;
    // 16:00 Bea starts a new conversation; 17:00 Ana replies to Caio's message: answered after 3 h.
    textMessage({ group: G1, id: 'S2', sender: CAIO }, T + 120 * MIN),
    textMessage({ group: G1, id: 'S2b', sender: CAIO }, T + 125 * MIN),
    textMessage({ group: G1, id: 'S3', sender: BEA }, T + 240 * MIN),
    textMessage({ group: G1, id: 'R2', sender: ANA }, T + 300 * MIN, { replyTo: 'S2' }),
    // G2: Ana's question, only answered by her other account: unanswered.
    textMessage({ group: G2, id: 'S4', sender: ANA }, T),
    textMessage({ group: G2, id: 'R4', sender: ANA_2 }, T + 5 * MIN),
  ];
  return bodies.map((body, index) => ({ eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, body }));
}

const fresh = useFreshLakes(2);

const responsesOf = async (index: number): Promise<Record<string, unknown>[]> =>
  (
    await fresh
      .at(index)
      .lake.pool.query<Record<string, unknown>>(
        `SELECT group_jid, message_id, first_response_id, response_seconds FROM engagement_first_responses ORDER BY 1, 2`
      )
  ).rows;

describe('time to first response (ADR 0020)', () => {
  it('finds conversation starts and their first response, the same by replay, order and rebuild', async () => {
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
    const rows = await responsesOf(0);
    expect(rows).toEqual([
      { group_jid: G1, message_id: 'S1', first_response_id: 'R1', response_seconds: '600' },
      { group_jid: G1, message_id: 'S2', first_response_id: 'R2', response_seconds: '10800' },
      { group_jid: G1, message_id: 'S3', first_response_id: 'R2', response_seconds: '3600' },
      { group_jid: G2, message_id: 'S4', first_response_id: null, response_seconds: null },
    ]);
    expect(await responsesOf(1)).toEqual(rows);
    await rebuildProjections(fresh.at(1).lake.pool);
    expect(await responsesOf(1)).toEqual(rows);

    const daily = await fresh.at(0).lake.pool.query(
      `SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day, conversations, answered, median_minutes, p90_minutes,
                answered_within_1h, answered_within_24h FROM engagement_first_response_daily ORDER BY 1`
    );
    expect(daily.rows).toEqual([
      {
        group_jid: G1,
        day: '2024-03-04',
        conversations: 3,
        answered: 3,
        median_minutes: 60,
        p90_minutes: 156,
        answered_within_1h: 2 / 3,
        answered_within_24h: 1,
      },
      {
        group_jid: G2,
        day: '2024-03-04',
        conversations: 1,
        answered: 0,
        median_minutes: null,
        p90_minutes: null,
        answered_within_1h: 0,
        answered_within_24h: 0,
      },
    ]);
    expect(await readFirstResponseSummary(fresh.at(0).lake.pool)).toEqual({
      conversations: 4,
      firstResponseMedianMinutes: 60,
      // No question and no newcomer here: the unanswered list (replies-and-unanswered.test.ts) is empty.
      unanswered: 0,
    });
  });
});
