import type pg from 'pg';
import {
  InvertedReportRangeError,
  MAX_REPORT_DAYS,
  ReportRangeTooLongError,
  UnknownReportGroupError,
} from '../errors.js';
import { inTransaction } from '../pool.js';
import { readReportCoverage } from './coverage-queries.js';
import { emptyEngagementReport, type EngagementReport, type EngagementReportOptions } from './engagement-report.js';
import {
  compareTotals,
  previousPeriod,
  readActivityHours,
  readLevelMonths,
  readNewcomerFunnel,
  readPeriodTotals,
} from './report-questions-queries.js';
import { catchUpEngagementRollup } from './rollup-catch-up.js';

export type { EngagementReport, EngagementReportOptions } from './engagement-report.js';

// Activity of the range (and the days before it that MAU and the lurker window need) in one narrow temp table: every chart
// below reads it instead of the views (ADR 0013). The views read the rollup tables, caught up just before, and
// recount only marked days (ADR 0025, "A year's volume"). With both ends given, only the days the report needs are
// read (the tables' day index); otherwise every day is, and the missing end is read off the result.
const LOAD_DAYS_SQL = `
  CREATE TEMP TABLE report_days ON COMMIT DROP AS
  SELECT group_jid, participant_id, person_key, member_id, day, messages, replies, reactions_given
    FROM engagement_member_activity_days
   WHERE ($1::text IS NULL OR group_jid = $1)
     AND ($2::date IS NULL OR $3::date IS NULL
          OR day BETWEEN LEAST($2::date - 29, $3::date - $4::int + 1, $2::date - ($3::date - $2::date + 1),
                               (date_trunc('month', $2::date) - interval '3 months')::date) AND $3::date)`;

// DAU counts the members active on the day; WAU and MAU count a member active on day d on d .. d+window-1, ending
// early at the member's next active day, so each member counts once. Members are numbered first: ordering each
// member's days by an integer instead of the person key (strcoll() of a UTF-8 locale) was most of this query's time.
const ACTIVE_MEMBERS_SQL = `
  WITH people AS MATERIALIZED (
    SELECT person_key, row_number() OVER () AS person FROM (SELECT DISTINCT person_key FROM report_days) keys),
  spans AS MATERIALIZED (
    SELECT day, lead(day) OVER (PARTITION BY person ORDER BY day) AS next_day
      FROM (SELECT DISTINCT p.person, d.day FROM report_days d JOIN people p USING (person_key)
             WHERE d.day BETWEEN $1::date - 29 AND $2::date) member_days),
  changes AS (
    SELECT day, count(*) AS d1, count(*) AS d7, count(*) AS d30 FROM spans GROUP BY day
    UNION ALL SELECT day + 1, -count(*), 0, 0 FROM spans GROUP BY day
    UNION ALL SELECT LEAST(day + 7, COALESCE(next_day, day + 7)), 0, -count(*), 0 FROM spans GROUP BY 1
    UNION ALL SELECT LEAST(day + 30, COALESCE(next_day, day + 30)), 0, 0, -count(*) FROM spans GROUP BY 1),
  per_day AS (SELECT day, sum(d1) AS d1, sum(d7) AS d7, sum(d30) AS d30 FROM changes GROUP BY day),
  running AS (
    SELECT c.day::date AS day, sum(COALESCE(p.d1, 0)) OVER w AS dau, sum(COALESCE(p.d7, 0)) OVER w AS wau,
           sum(COALESCE(p.d30, 0)) OVER w AS mau
      FROM generate_series($1::date - 29, $2::date, interval '1 day') AS c(day)
      LEFT JOIN per_day p ON p.day = c.day::date
    WINDOW w AS (ORDER BY c.day))
  SELECT to_char(day, 'YYYY-MM-DD') AS day, dau::int, wau::int, mau::int FROM running WHERE day >= $1::date ORDER BY day`;

// A chat-export sender no participant is known for counts under `name:<name as written>` (ADR 0023): its display
// name is the name. Summed per participant first (hashed), so only a few rows per person are sorted to list its participants.
const TOP_MEMBERS_SQL = `
  WITH participants AS (
    SELECT person_key, member_id, participant_id, sum(messages) AS messages, sum(replies) AS replies,
           sum(reactions_given) AS reactions_given
      FROM report_days WHERE day BETWEEN $1 AND $2 GROUP BY 1, 2, 3),
  top AS (
    SELECT person_key, member_id, string_agg(participant_id, ' ' ORDER BY participant_id) AS "participantId",
           sum(messages)::int AS messages, sum(replies)::int AS replies, sum(reactions_given)::int AS "reactionsGiven"
      FROM participants GROUP BY person_key, member_id ORDER BY messages DESC, "reactionsGiven" DESC, 3 LIMIT $3),
  named AS (
    SELECT DISTINCT ON (p.person_key) p.person_key, n.display_name, n.display_name_source
      FROM participants p JOIN top USING (person_key)
      JOIN whatsapp_participant_display_names n ON n.participant_id = p.participant_id
     ORDER BY p.person_key, (n.display_name_source IN ('phone', 'id')), p.messages DESC, p.participant_id)
  SELECT top."participantId", top.member_id AS "memberId",
         COALESCE(CASE WHEN named.display_name_source IN ('member', 'push', 'business') THEN named.display_name END,
                  top.member_id, named.display_name,
                  CASE WHEN top.person_key LIKE 'name:%' THEN substr(top.person_key, 6) END,
                  top."participantId") AS "displayName",
         COALESCE(named.display_name_source = 'phone' AND top.member_id IS NULL, false) AS "displayNameIsPhone",
         top.messages, top.replies, top."reactionsGiven"
    FROM top LEFT JOIN named USING (person_key)
   ORDER BY top.messages DESC, top."reactionsGiven" DESC, 1`;

// The cohorts of the range, in a temp table of their own: estimated through the membership-changes view, their
// row count came out as 1, and PostgreSQL then re-aggregated the activity weeks once per cohort week (1.6 s).
const LOAD_COHORTS_SQL = `
  CREATE TEMP TABLE report_cohorts ON COMMIT DROP AS
  SELECT group_jid, participant_id, cohort_week, count(*) OVER (PARTITION BY cohort_week) AS size, joined_at
    FROM (SELECT group_jid, participant_id, date_trunc('week', min(at) AT TIME ZONE $3)::date AS cohort_week,
                 min(at) AS joined_at
            FROM engagement_membership_changes
           WHERE change = 'join' AND ($4::text IS NULL OR group_jid = $4)
           GROUP BY 1, 2
          HAVING (min(at) AT TIME ZONE $3)::date BETWEEN $1::date AND $2::date) joined`;

// The weeks of the range each cohort member was active in, read by the retention and the funnel.
const LOAD_COHORT_WEEKS_SQL = `
  CREATE TEMP TABLE report_cohort_weeks ON COMMIT DROP AS
  SELECT DISTINCT d.group_jid, d.participant_id, date_trunc('week', d.day)::date AS week
    FROM report_days d JOIN report_cohorts c USING (group_jid, participant_id)
   WHERE d.day BETWEEN $1::date AND $2::date`;

// Every week from a cohort's join week to the last week of the range is a row, 0 % when no member of the cohort
// was active in it (ADR 0019): an inner join with the activity dropped those weeks and whole cohorts.
const COHORTS_SQL = `
  WITH active AS (SELECT c.cohort_week, w.week, count(*) AS members
               FROM report_cohorts c
               JOIN report_cohort_weeks w ON w.group_jid = c.group_jid AND w.participant_id = c.participant_id AND w.week >= c.cohort_week
              GROUP BY 1, 2),
  grid AS (SELECT s.cohort_week, s.size, week::date AS week
             FROM (SELECT DISTINCT cohort_week, size FROM report_cohorts) s,
                  generate_series(s.cohort_week, date_trunc('week', $1::date)::date, interval '7 days') AS week)
  SELECT to_char(g.cohort_week, 'YYYY-MM-DD') AS "cohortWeek", ((g.week - g.cohort_week) / 7)::int AS "weekOffset",
         g.size::int AS "cohortSize", COALESCE(a.members, 0)::int AS "activeMembers",
         round(COALESCE(a.members, 0)::numeric / g.size, 4)::float8 AS retention
    FROM grid g LEFT JOIN active a USING (cohort_week, week)
   ORDER BY 1, 2`;

/**
 * Reads every figure of the engagement report (architecture.md §13) in one repeatable-read
 * transaction (it writes only its own temp tables), so all charts describe the same moment of the lake. A
 * missing end of the range defaults to the first or last day with activity (of the group, when one is given).
 *
 * @throws UnknownReportGroupError when `groupJid` names a group the lake has no row and no message of.
 * @throws InvertedReportRangeError when the first day falls after the last (given, or defaulted from the data).
 * @throws ReportRangeTooLongError when the range spans more than MAX_REPORT_DAYS days.
 * @throws pg.DatabaseError when a query fails (for example an unknown time zone in `engagement_settings`).
 */
export async function readEngagementReport(pool: pg.Pool, options: EngagementReportOptions): Promise<EngagementReport> {
  await catchUpEngagementRollup(pool);
  return inTransaction(
    pool,
    async (client) => {
      // Enough for the rollup's hash aggregates of a lake of millions of messages to stay in memory.
      await client.query(`SET LOCAL work_mem = '256MB'`);
      if (options.groupJid !== null) await assertGroupInLake(client, options.groupJid);
      await client.query(LOAD_DAYS_SQL, [options.groupJid, options.from, options.to, options.lurkerDays]);
      await client.query('ANALYZE report_days');
      const { tz, from, to } = await readReportRange(client, options);
      const report = emptyEngagementReport({
        timeZone: tz,
        groupJid: options.groupJid,
        from,
        to,
        lurkerDays: options.lurkerDays,
      });
      if (from === null || to === null) return report;
      await fillReport(client, report, { from, to, timeZone: tz, groupJid: options.groupJid }, options);
      return report;
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ'
  );
}

/**
 * The one rule for "is this group in the lake" that `wa-lake report`, the dashboard and `wa-lake coverage` share: a
 * group row (a captured group, or one made by a chat export, ADR 0029), a stored message of it, or a period a
 * collector observed it (ADR 0016).
 *
 * @throws UnknownReportGroupError when the lake has neither.
 */
export async function assertGroupInLake(db: pg.Pool | pg.ClientBase, groupJid: string): Promise<void> {
  const known = await db.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM whatsapp_groups WHERE jid = $1)
            OR EXISTS (SELECT 1 FROM whatsapp_message_records WHERE chat_jid = $1)
            OR EXISTS (SELECT 1 FROM whatsapp_group_coverage WHERE group_jid = $1) AS known`,
    [groupJid]
  );
  if (known.rows[0]?.known !== true) throw new UnknownReportGroupError(groupJid);
}

/**
 * The lake's time zone and the report's days: the asked ones, an open end filled from the loaded days (null when
 * there are none).
 * @throws InvertedReportRangeError or ReportRangeTooLongError.
 */
async function readReportRange(
  client: pg.ClientBase,
  options: EngagementReportOptions
): Promise<{ tz: string; from: string | null; to: string | null }> {
  const range = await client.query<{ tz: string; from: string | null; to: string | null }>(
    `SELECT wa_engagement_time_zone() AS tz,
            to_char(COALESCE($1::date, (SELECT min(day) FROM report_days)), 'YYYY-MM-DD') AS from,
            to_char(COALESCE($2::date, (SELECT max(day) FROM report_days)), 'YYYY-MM-DD') AS to`,
    [options.from, options.to]
  );
  const { tz, from, to } = range.rows[0] ?? { tz: 'UTC', from: null, to: null };
  if (from !== null && to !== null && from > to) {
    const defaulted = options.from === null ? 'from' : options.to === null ? 'to' : null;
    throw new InvertedReportRangeError(from, to, defaulted);
  }
  if (from !== null && to !== null) {
    const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
    if (days > MAX_REPORT_DAYS) throw new ReportRangeTooLongError(from, to, days);
  }
  return { tz, from, to };
}

/** Fills every section of `report` over `scope`, whose days are loaded in `report_days`. */
async function fillReport(
  client: pg.PoolClient,
  report: EngagementReport,
  scope: { from: string; to: string; timeZone: string; groupJid: string | null },
  options: EngagementReportOptions
): Promise<void> {
  const { from, to, timeZone: tz } = scope;
  const span = [from, to];
  const q = async <T extends pg.QueryResultRow>(sql: string, values: unknown[] = span): Promise<T[]> =>
    (await client.query<T>(sql, values)).rows;
  const totals = await readPeriodTotals(client, scope);
  const previous = previousPeriod(from, to);
  const previousTotals = await readPeriodTotals(client, { ...scope, ...previous });
  report.previousPeriod = { ...previous, totals: previousTotals };
  report.totalsComparison = compareTotals(totals, previousTotals);
  report.groups = await q(
    `SELECT p.group_jid AS "groupJid", g.subject, sum(p.messages)::int AS messages, count(*)::int AS "activeMembers"
       FROM (SELECT group_jid, person_key, sum(messages) AS messages
               FROM report_days WHERE day BETWEEN $1 AND $2 GROUP BY 1, 2) p
       LEFT JOIN whatsapp_groups g ON g.jid = p.group_jid
      GROUP BY 1, 2 ORDER BY messages DESC, 1`
  );
  report.messagesPerDay = await q(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, group_jid AS "groupJid", sum(messages)::int AS messages
       FROM report_days WHERE day BETWEEN $1 AND $2 GROUP BY day, group_jid ORDER BY day, group_jid`
  );
  report.activeMembers = await q(ACTIVE_MEMBERS_SQL);
  report.topMembers = await q(TOP_MEMBERS_SQL, [...span, options.topMembers]);
  report.joinsLeaves = await q(
    `SELECT to_char((at AT TIME ZONE $3)::date, 'YYYY-MM-DD') AS day,
            count(*) FILTER (WHERE change = 'join')::int AS joins, count(*) FILTER (WHERE change = 'leave')::int AS leaves
       FROM engagement_membership_changes
      WHERE (at AT TIME ZONE $3)::date BETWEEN $1 AND $2 AND ($4::text IS NULL OR group_jid = $4)
      GROUP BY 1 ORDER BY 1`,
    [...span, tz, options.groupJid]
  );
  await client.query(LOAD_COHORTS_SQL, [...span, tz, options.groupJid]);
  await client.query('ANALYZE report_cohorts');
  await client.query(LOAD_COHORT_WEEKS_SQL, [from, to]);
  await client.query('ANALYZE report_cohort_weeks');
  report.cohorts = await q(COHORTS_SQL, [to]);
  report.newcomerFunnel = await readNewcomerFunnel(client, scope);
  report.levels = await readLevelMonths(client, from, to);
  report.activityHours = await readActivityHours(client, scope);
  report.lurkers = await q(
    `SELECT m.group_jid AS "groupJid", count(*)::int AS members,
            count(*) FILTER (WHERE NOT EXISTS (
              SELECT 1 FROM report_days d WHERE d.group_jid = m.group_jid AND d.participant_id = m.participant_id
                 AND d.day > $1::date - $2::int AND d.day <= $1::date))::int AS lurkers
       FROM whatsapp_group_memberships m
      WHERE m.left_at IS NULL AND ($3::text IS NULL OR m.group_jid = $3)
      GROUP BY 1 ORDER BY lurkers DESC, 1`,
    [to, options.lurkerDays, options.groupJid]
  );
  report.exportDays = await q(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.group_jid AS "groupJid", count(m.*)::int AS messages
       FROM whatsapp_export_days d
       JOIN whatsapp_export_messages m ON m.group_jid = d.group_jid AND m.day = d.day
      WHERE d.is_counted AND d.day BETWEEN $1 AND $2 AND ($3::text IS NULL OR d.group_jid = $3)
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [...span, options.groupJid]
  );
  const coveredGroups = options.groupJid !== null ? [options.groupJid] : report.groups.map((group) => group.groupJid);
  report.coverage = await readReportCoverage(client, from, to, coveredGroups);
  report.totals = totals;
}
