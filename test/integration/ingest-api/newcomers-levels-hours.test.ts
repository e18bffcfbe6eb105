import { describe, expect, it } from 'vitest';
import { readEngagementReport, rebuildProjections, type EngagementReport } from '../../../lake/index.js';
import { textMessage, type Body } from '../../helpers/message-events.js';
import { useFreshLakes } from '../../helpers/lake-databases.js';

const G1 = '120363000000000701@g.us';
const G2 = '120363000000000702@g.us';
const ANA = '100000000000071@lid';
const BEA = '100000000000072@lid';
const CAIO = '100000000000073@lid';
const DANI = '100000000000074@lid';
const EVA = '100000000000075@lid';
const FABI = '100000000000076@lid';
const HOUR = 3600;
const DAY = 86_400;
/** 2024-01-01 00:00 in São Paulo (UTC−3), a Monday; `at(d, h)` is day d (0 = 1 January) at h:00 local. */
const at = (day: number, hour: number): number => Date.parse('2024-01-01T03:00:00Z') / 1000 + day * DAY + hour * HOUR;

const joined = (who: string, t: number): Body => ({
  type: 'group-participants.update',
  chat_jid: G1,
  captured_at: new Date(t * 1000).toISOString(),
  payload: { id: G1, action: 'add', participants: [{ id: who, admin: null }] },
});

/**
 * The examples of docs/engagement.md "Newcomers" and "Levels": Ana writes every day from 1 January to 9 February,
 * Bea on 8 days of January, Caio on 2 days of one week (and once in G2, and in May), Dani, Eva and Fabi join on
 * 3 January; Dani says hello and Bea answers 21 h later, Fabi's hello gets no answer, Eva never writes.
 */
function scenario(): { eventId: string; body: Body }[] {
  const say = (group: string, id: string, sender: string, t: number, replyTo?: string): Body =>
    textMessage({ group, id, sender }, t, replyTo ? { replyTo } : {});
  const bodies: Body[] = [
    joined(DANI, at(2, 9)),
    joined(EVA, at(2, 9)),
    joined(FABI, at(2, 9)),
    ...Array.from({ length: 40 }, (_, day) => say(G1, `A${String(day)}`, ANA, at(day, 12))),
    ...[1, 5, 7, 9, 11, 13, 15].map((day) => say(G1, `B${String(day)}`, BEA, at(day, 13))),
    say(G1, 'D1', DANI, at(2, 14)),
    say(G1, 'B3', BEA, at(3, 11), 'D1'),
    say(G1, 'F1', FABI, at(4, 20)),
    say(G1, 'C1', CAIO, at(7, 18)),
    say(G1, 'C2', CAIO, at(8, 18)),
    say(G2, 'C3', CAIO, at(9, 18)),
    // 29 January, week 4 after the join week; 26 March, week 12; 2 May, the lake's last day.
    say(G1, 'D2', DANI, at(28, 10)),
    say(G1, 'F2', FABI, at(85, 10)),
    say(G1, 'C4', CAIO, at(122, 10)),
  ];
  return bodies.map((body, index) => ({ eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, body }));
}

const fresh = useFreshLakes(2);

type Rows = Record<string, unknown>[];
interface Read {
  levels: Rows;
  transitions: Rows;
  monthly: Rows;
  funnel: Rows;
  hours: Rows;
  periods: Rows;
  report: EngagementReport;
}

async function read(index: number): Promise<Read> {
  const pool = fresh.at(index).lake.pool;
  const q = async (sql: string): Promise<Rows> => (await pool.query<Record<string, unknown>>(sql)).rows;
  return {
    levels: await q(
      `SELECT group_jid, person_key, to_char(month, 'YYYY-MM') AS month, active_days_month, active_days_quarter,
              best_week_days, level, level_name
         FROM engagement_member_levels ORDER BY 1 NULLS FIRST, 2, 3`
    ),
    transitions: await q(
      `SELECT group_jid, person_key, to_char(month, 'YYYY-MM') AS month, from_level, to_level, movement
         FROM engagement_level_transitions ORDER BY 1 NULLS FIRST, 2, 3`
    ),
    monthly: await q(
      `SELECT to_char(month, 'YYYY-MM-DD') AS month, advocates, contributors, participants, explorers, moved_up,
              held, moved_down, new, gone
         FROM engagement_level_monthly WHERE group_jid = '${G1}' ORDER BY month`
    ),
    funnel: await q(
      `SELECT group_jid, to_char(cohort_week, 'YYYY-MM-DD') AS cohort_week, joined, first_message,
              answered_within_24h, active_week_4, active_week_12
         FROM engagement_newcomer_funnel ORDER BY 1, 2`
    ),
    hours: await q(
      `SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day, weekday, hour, messages
         FROM engagement_activity_hours ORDER BY 1, 2, 4`
    ),
    periods: await q(
      `SELECT metric, current_value, previous_value, change, change_percent::float8 AS change_percent,
              to_char(previous_from, 'YYYY-MM-DD') AS previous_from, to_char(previous_to, 'YYYY-MM-DD') AS previous_to
         FROM engagement_period_totals('2024-02-01', '2024-02-29', '${G1}')`
    ),
    report: await readEngagementReport(pool, {
      groupJid: G1,
      from: '2024-01-01',
      to: '2024-05-02',
      lurkerDays: 30,
      topMembers: 10,
    }),
  };
}

describe('newcomer funnel, levels, hours and the previous period (ADR 0025)', () => {
  it('counts them as documented, the same by replay twice, reversed delivery and rebuild', async () => {
    const events = scenario();
    for (const [index, order] of [events, [...events].reverse()].entries()) {
      for (let round = 0; round < 2; round += 1)
        for (const { eventId, body } of order) await fresh.at(index).lake.store(eventId, JSON.stringify(body));
    }
    const first = await read(0);
    expect(first.monthly).toEqual([
      month('2024-01-01', [1, 1, 1, 2], { new: 5 }),
      month('2024-02-01', [1, 0, 0, 4], { held: 3, moved_down: 2 }),
      month('2024-03-01', [1, 0, 0, 4], { held: 5 }),
      month('2024-04-01', [0, 0, 0, 2], { moved_down: 1, held: 1, gone: 3 }),
      month('2024-05-01', [0, 0, 0, 2], { held: 1, new: 1, gone: 1 }),
    ]);
    const ana = first.levels.filter((row) => row['person_key'] === ANA && row['group_jid'] === G1);
    expect(
      ana.map((row) => [row['month'], row['active_days_month'], row['active_days_quarter'], row['level_name']])
    ).toEqual([
      ['2024-01', 31, 31, 'advocate'],
      ['2024-02', 9, 40, 'advocate'],
      ['2024-03', 0, 40, 'advocate'],
      ['2024-04', 0, 9, 'explorer'],
    ]);
    // All groups: Caio's G2 message makes his best January week 3 days; G2 alone has him as an explorer.
    const caio = (group: string | null): unknown[] =>
      first.levels
        .filter((row) => row['person_key'] === CAIO && row['group_jid'] === group && row['month'] === '2024-01')
        .map((row) => [row['best_week_days'], row['level_name']]);
    expect(caio(null)).toEqual([[3, 'participant']]);
    expect(caio(G2)).toEqual([[1, 'explorer']]);
    expect(first.transitions.filter((row) => row['group_jid'] === G1 && row['person_key'] === BEA)).toEqual([
      { group_jid: G1, person_key: BEA, month: '2024-01', from_level: null, to_level: 2, movement: 'new' },
      { group_jid: G1, person_key: BEA, month: '2024-02', from_level: 2, to_level: 4, movement: 'down' },
      { group_jid: G1, person_key: BEA, month: '2024-03', from_level: 4, to_level: 4, movement: 'held' },
      { group_jid: G1, person_key: BEA, month: '2024-04', from_level: 4, to_level: null, movement: 'gone' },
    ]);
    expect(first.funnel).toEqual([
      {
        group_jid: G1,
        cohort_week: '2024-01-01',
        joined: 3,
        first_message: 2,
        answered_within_24h: 1,
        active_week_4: 1,
        active_week_12: 1,
      },
    ]);
    // Dani's hello, Wednesday 14:00; Ana's 40 messages at noon, 6 of them on Mondays.
    const hour = (weekday: number, h: number): number =>
      first.report.activityHours.find((row) => row.weekday === weekday && row.hour === h)?.messages ?? 0;
    expect([hour(3, 14), hour(1, 12), hour(7, 12), hour(1, 11)]).toEqual([1, 6, 5, 0]);
    expect(first.report.activityHours.reduce((sum, row) => sum + row.messages, 0)).toBe(first.report.totals.messages);
    // February against 3–31 January in G1: 9 messages of Ana against 29 + Bea 7 + Caio 2 + Dani 2 + Fabi 1.
    expect(first.periods.slice(0, 2)).toEqual([
      metric('messages', 9, 41, -32, -78),
      metric('active_members', 1, 5, -4, -80),
    ]);
    expect(first.periods.find((row) => row['metric'] === 'joins')).toEqual(metric('joins', 0, 3, -3, -100));

    expect(await read(1)).toEqual(first);
    await rebuildProjections(fresh.at(1).lake.pool);
    expect(await read(1)).toEqual(first);
  });

  it('gives the report the views’ numbers, and each total beside the previous period', async () => {
    const { report, monthly, funnel, periods } = await read(0);
    expect(report.levels.map((row): unknown[] => Object.values(row))).toEqual(
      monthly.map((row): unknown[] => Object.values(row))
    );
    expect(report.newcomerFunnel).toEqual([
      { cohortWeek: '2024-01-01', joined: 3, firstMessage: 2, answeredWithin24h: 1, activeWeek4: 1, activeWeek12: 1 },
    ]);
    expect(funnel).toHaveLength(1);
    const february = await readEngagementReport(fresh.at(0).lake.pool, {
      groupJid: G1,
      from: '2024-02-01',
      to: '2024-02-29',
      lurkerDays: 30,
      topMembers: 10,
    });
    expect(february.previousPeriod).toMatchObject({ from: '2024-01-03', to: '2024-01-31' });
    const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    expect(
      february.totalsComparison.map((row) => [
        snake(row.metric),
        row.current,
        row.previous,
        row.change,
        row.changePercent,
      ])
    ).toEqual(
      periods.map((row) => [
        row['metric'],
        Number(row['current_value']),
        Number(row['previous_value']),
        Number(row['change']),
        row['change_percent'],
      ])
    );
    // A week-4 step that lies beyond the report's last day is unknown, not 0.
    const early = await readEngagementReport(fresh.at(0).lake.pool, {
      groupJid: G1,
      from: '2024-01-01',
      to: '2024-01-20',
      lurkerDays: 30,
      topMembers: 10,
    });
    expect(early.newcomerFunnel[0]).toMatchObject({ joined: 3, activeWeek4: null, activeWeek12: null });
  });
});

function month(
  start: string,
  [advocates, contributors, participants, explorers]: number[],
  moves: Partial<Record<'moved_up' | 'held' | 'moved_down' | 'new' | 'gone', number>>
): Record<string, unknown> {
  return {
    month: start,
    advocates,
    contributors,
    participants,
    explorers,
    moved_up: 0,
    held: 0,
    moved_down: 0,
    new: 0,
    gone: 0,
    ...moves,
  };
}

function metric(name: string, current: number, previous: number, change: number, percent: number): Rows[number] {
  return {
    metric: name,
    current_value: String(current),
    previous_value: String(previous),
    change: String(change),
    change_percent: percent,
    previous_from: '2024-01-03',
    previous_to: '2024-01-31',
  };
}
