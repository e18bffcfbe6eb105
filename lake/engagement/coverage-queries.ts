import type pg from 'pg';

/** How much of one local day the lake observed a group (ADR 0016). */
export type DayCoverage = 'full' | 'partly' | 'none';

/** One group's days, from its first day in the lake (its first event, docs/engagement.md "Coverage") to today. */
export interface GroupCoverage {
  groupJid: string;
  /** Days as YYYY-MM-DD in the engagement time zone, ascending. */
  days: Array<{ day: string; coverage: DayCoverage }>;
  /** Observed periods of the group (every account together), ISO times, ascending. */
  periods: Array<{ startedAt: string; endedAt: string }>;
}

// The day rule lives in the lake (`wa_group_day_coverage`, migration 1765710000001), also for dashboards.
const DAYS_SQL = `
  SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day, coverage
    FROM wa_group_day_coverage($2::timestamptz, $1::text) ORDER BY group_jid, day`;

const PERIODS_SQL = `
  SELECT group_jid, started_at, ended_at FROM whatsapp_group_coverage
   WHERE $1::text IS NULL OR group_jid = $1 ORDER BY group_jid, started_at`;

/**
 * Per group, each local day (engagement time zone) from the group's first day in the lake to the day of
 * `now`: fully observed (inside one observed period of `whatsapp_group_coverage`), partly observed, or not
 * observed (ADR 0016, docs/engagement.md "Coverage"). Today is at most partly observed.
 *
 * @param options.groupJid - only this group.
 * @param options.now - the last day's instant (default the current time).
 * @throws pg.DatabaseError when a query fails.
 */
export async function readCoverageDays(
  pool: pg.Pool,
  options: { groupJid?: string; now?: Date } = {}
): Promise<GroupCoverage[]> {
  const group = options.groupJid ?? null;
  const [days, periods] = await Promise.all([
    pool.query<{ group_jid: string; day: string; coverage: DayCoverage }>(DAYS_SQL, [group, options.now ?? new Date()]),
    pool.query<{ group_jid: string; started_at: Date; ended_at: Date }>(PERIODS_SQL, [group]),
  ]);
  const byGroup = new Map<string, GroupCoverage>();
  const entry = (groupJid: string): GroupCoverage => {
    let found = byGroup.get(groupJid);
    if (!found) byGroup.set(groupJid, (found = { groupJid, days: [], periods: [] }));
    return found;
  };
  for (const row of days.rows) entry(row.group_jid).days.push({ day: row.day, coverage: row.coverage });
  for (const row of periods.rows)
    entry(row.group_jid).periods.push({ startedAt: row.started_at.toISOString(), endedAt: row.ended_at.toISOString() });
  return [...byGroup.values()].sort((a, b) => (a.groupJid < b.groupJid ? -1 : 1));
}

// Per day of the range, the least and the most any of the report's groups was observed; a day before a group's
// first day in the lake is a day it was not observed.
const REPORT_DAYS_SQL = `
  WITH cells AS (
    SELECT d::date AS day, CASE c.coverage WHEN 'full' THEN 2 WHEN 'partly' THEN 1 ELSE 0 END AS level
      FROM generate_series($1::date, $2::date, interval '1 day') AS d
     CROSS JOIN unnest($3::text[]) AS g (group_jid)
      LEFT JOIN wa_group_day_coverage((($2::date + 1)::timestamp AT TIME ZONE wa_engagement_time_zone()), g.group_jid) c
             ON c.day = d::date)
  SELECT to_char(day, 'YYYY-MM-DD') AS day,
         CASE WHEN min(level) = 2 THEN 'full' WHEN max(level) = 0 THEN 'none' ELSE 'partly' END AS coverage
    FROM cells GROUP BY day ORDER BY day`;

/** How much of each day of a report the lake observed its groups (docs/engagement.md "Coverage"). */
export interface ReportCoverage {
  /**
   * Whether the lake holds any collector session event or beat. Without one (a lake fed only by replays or written
   * before coverage existed) nothing is known about gaps, and no day is shaded.
   */
  isRecorded: boolean;
  /**
   * Each day of the range (engagement time zone): `full` when every group of the report was observed all day,
   * `none` when none of them was observed at any moment, `partly` otherwise. Empty when not recorded.
   */
  days: Array<{ day: string; coverage: DayCoverage }>;
}

/**
 * The coverage of a report's days over its groups (the report shades unobserved spans, ADR 0016), read on the
 * report's own client so it describes the same moment as its numbers.
 * @param from - first day (`YYYY-MM-DD`), @param to - last day, @param groupJids - the report's groups.
 * @throws pg.DatabaseError when a query fails.
 */
export async function readReportCoverage(
  client: pg.ClientBase,
  from: string,
  to: string,
  groupJids: readonly string[]
): Promise<ReportCoverage> {
  const recorded = await client.query<{ is_recorded: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM whatsapp_collector_beats) AS is_recorded`
  );
  if (recorded.rows[0]?.is_recorded !== true) return { isRecorded: false, days: [] };
  const { rows } = await client.query<{ day: string; coverage: DayCoverage }>(REPORT_DAYS_SQL, [from, to, groupJids]);
  return { isRecorded: true, days: rows };
}

/** The key and time of a stored group message (the cursor a history backfill asks before). */
export interface StoredMessageKey {
  id: string;
  fromMe: boolean;
  participant: string | null;
  tsMs: number;
}

/**
 * The oldest group message the lake holds at or after `sinceMs` (ADR 0016): `wa-lake backfill` asks
 * WhatsApp for the history before it, back to `since`. Null when the lake holds none.
 * @throws pg.DatabaseError when the query fails.
 */
export async function readOldestMessageSince(
  pool: pg.Pool,
  groupJid: string,
  sinceMs: number
): Promise<StoredMessageKey | null> {
  const { rows } = await pool.query<{ id: string; from_me: boolean; participant: string | null; at: Date }>(
    `SELECT payload->'key'->>'id' AS id, COALESCE((payload->'key'->>'fromMe')::boolean, false) AS from_me,
            payload->'key'->>'participant' AS participant, occurred_at AS at
       FROM whatsapp_event_logs
      WHERE chat_jid = $1 AND type = 'messages.upsert' AND occurred_at >= $2 AND payload->'key'->>'id' IS NOT NULL
      ORDER BY occurred_at, event_id LIMIT 1`,
    [groupJid, new Date(sinceMs)]
  );
  const row = rows[0];
  return row ? { id: row.id, fromMe: row.from_me, participant: row.participant, tsMs: row.at.getTime() } : null;
}
