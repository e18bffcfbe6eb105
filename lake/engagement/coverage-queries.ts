import type pg from 'pg';

/** How much of one local day the lake observed a group (issue #29 item 2). */
export type DayCoverage = 'full' | 'partly' | 'none';

/** One group's days, from its first day in the lake (first event or first observed moment) to today. */
export interface GroupCoverage {
  groupJid: string;
  /** Days as YYYY-MM-DD in the engagement time zone, ascending. */
  days: Array<{ day: string; coverage: DayCoverage }>;
  /** Observed periods of the group (every account together), ISO times, ascending. */
  periods: Array<{ startedAt: string; endedAt: string }>;
}

const DAYS_SQL = `
  WITH zone AS (SELECT wa_engagement_time_zone() AS tz),
  groups AS (
    SELECT jid AS group_jid FROM whatsapp_groups WHERE $1::text IS NULL OR jid = $1
    UNION SELECT group_jid FROM whatsapp_group_coverage WHERE $1::text IS NULL OR group_jid = $1
    UNION SELECT group_jid FROM whatsapp_group_unobserved_periods WHERE $1::text IS NULL OR group_jid = $1),
  periods AS (
    SELECT g.group_jid,
           COALESCE((SELECT range_agg(tstzrange(c.started_at, c.ended_at, '[]')) FROM whatsapp_group_coverage c
                      WHERE c.group_jid = g.group_jid), '{}'::tstzmultirange) AS observed,
           (SELECT min(e.occurred_at) FROM whatsapp_event_logs e WHERE e.chat_jid = g.group_jid) AS first_event_at
      FROM groups g),
  days AS (
    SELECT p.group_jid, p.observed, d::date AS day
      FROM periods p, zone,
           generate_series((least(p.first_event_at, lower(p.observed)) AT TIME ZONE zone.tz)::date,
                           ($2::timestamptz AT TIME ZONE zone.tz)::date, interval '1 day') AS d
     WHERE least(p.first_event_at, lower(p.observed)) IS NOT NULL)
  SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day,
         CASE WHEN observed @> r THEN 'full' WHEN observed && r THEN 'partly' ELSE 'none' END AS coverage
    FROM (SELECT days.*, tstzrange(day::timestamp AT TIME ZONE zone.tz, (day + 1)::timestamp AT TIME ZONE zone.tz, '[)') AS r
            FROM days, zone) x
   ORDER BY group_jid, day`;

const PERIODS_SQL = `
  SELECT group_jid, started_at, ended_at FROM whatsapp_group_coverage
   WHERE $1::text IS NULL OR group_jid = $1 ORDER BY group_jid, started_at`;

/**
 * Per group, each local day (engagement time zone) from the group's first day in the lake to the day of
 * `now`: fully observed (inside one observed period of `whatsapp_group_coverage`), partly observed, or not
 * observed (issue #29 item 2, docs/engagement.md "Coverage"). Today is at most partly observed.
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

/** The key and time of a stored group message (the cursor a history backfill asks before). */
export interface StoredMessageKey {
  id: string;
  fromMe: boolean;
  participant: string | null;
  tsMs: number;
}

/**
 * The oldest group message the lake holds at or after `sinceMs` (issue #29 item 3): `wa-lake backfill` asks
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
