import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readEngagementReport } from '../../../lake/index.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// The report's newcomer funnel reads only the messages its answer rule can reach (ADR 0025, "A year's volume"); the
// view engagement_newcomer_funnel reads the whole lake. Each way a first message is answered or not, at the edges
// of that window, must give the view's numbers.
const G = '120363000000000901@g.us';
const OLD = '100000000000900@lid';
const N = (n: number): string => `10000000000090${String(n)}@lid`;
const HOUR = 3600;
const DAY = 86_400;
/** 2024-01-01 00:00 in São Paulo (UTC−3), a Monday; `at(d, h)` is day d at h:00 local. */
const at = (day: number, hour: number): number => Date.parse('2024-01-01T03:00:00Z') / 1000 + day * DAY + hour * HOUR;

const joined = (who: string, t: number): Body => ({
  type: 'group-participants.update',
  chat_jid: G,
  captured_at: new Date(t * 1000).toISOString(),
  payload: { id: G, action: 'add', participants: [{ id: who, admin: null }] },
});
const say = (id: string, sender: string, t: number, options: { replyTo?: string; mentions?: string[] } = {}): Body =>
  textMessage({ group: G, id, sender }, t, options);

function scenario(): Body[] {
  return [
    say('O0', OLD, at(0, 9)),
    // Week 1: N1's first message follows OLD's by 30 minutes, so it starts no conversation; nobody answers it.
    joined(N(1), at(1, 8)),
    say('O1', OLD, at(1, 9)),
    say('N1', N(1), at(1, 9.5)),
    // A reply to N4's first message with a clock days wrong: it counts as 0 s, far before the window.
    say('O2', OLD, at(2, 12), { replyTo: 'N4' }),
    say('N5a', N(5), at(3, 10)),
    // Week 2: N2 starts a conversation OLD joins 30 minutes later; OLD replies to N3 24 h and 1 s later; N5 spoke
    // before joining, so theirs is no newcomer's first message.
    joined(N(2), at(8, 8)),
    say('N2', N(2), at(8, 10)),
    say('O3', OLD, at(8, 10.5)),
    joined(N(3), at(9, 8)),
    say('N3', N(3), at(9, 10)),
    say('O4', OLD, at(10, 10) + 1, { replyTo: 'N3' }),
    joined(N(4), at(10, 8)),
    say('N4', N(4), at(10, 12)),
    joined(N(5), at(11, 8)),
    say('N5b', N(5), at(11, 10)),
    // Week 3: N6 writes twice before OLD answers in the conversation; N7's conversation ends, and OLD mentions
    // them 90 minutes later; N8 never writes.
    joined(N(6), at(15, 8)),
    say('N6a', N(6), at(15, 10)),
    say('N6b', N(6), at(15, 10) + 600),
    say('O5', OLD, at(15, 10) + 1200),
    joined(N(7), at(16, 8)),
    say('N7', N(7), at(16, 10)),
    say('O6', OLD, at(16, 11.5), { mentions: [N(7)] }),
    joined(N(8), at(17, 8)),
    say('O7', OLD, at(27, 12)),
  ];
}

const fresh = useFreshLake();

describe('the report’s newcomer funnel over its window (ADR 0025, a year’s volume)', () => {
  it('gives the view’s joined, first-message and answered counts for ranges that start on any week', async () => {
    for (const body of scenario()) await fresh.lake.store(randomUUID(), JSON.stringify(body));
    const view = (
      await fresh.lake.pool.query<{ cohortWeek: string; joined: number; firstMessage: number; answered: number }>(
        `SELECT to_char(cohort_week, 'YYYY-MM-DD') AS "cohortWeek", joined, first_message AS "firstMessage",
                answered_within_24h AS answered
           FROM engagement_newcomer_funnel WHERE group_jid = $1 ORDER BY 1`,
        [G]
      )
    ).rows;
    expect(view).toEqual([
      { cohortWeek: '2024-01-01', joined: 1, firstMessage: 1, answered: 0 },
      { cohortWeek: '2024-01-08', joined: 4, firstMessage: 3, answered: 2 },
      { cohortWeek: '2024-01-15', joined: 3, firstMessage: 2, answered: 2 },
    ]);
    for (const from of ['2024-01-01', '2024-01-08', '2024-01-15']) {
      const report = await readEngagementReport(fresh.lake.pool, {
        groupJid: null,
        from,
        to: '2024-01-28',
        lurkerDays: 30,
        topMembers: 10,
      });
      expect(
        report.newcomerFunnel.map(({ cohortWeek, joined, firstMessage, answeredWithin24h }) => ({
          cohortWeek,
          joined,
          firstMessage,
          answered: answeredWithin24h,
        }))
      ).toEqual(view.filter((row) => row.cohortWeek >= from));
    }
  });
});
