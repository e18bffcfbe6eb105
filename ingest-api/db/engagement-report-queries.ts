import type pg from 'pg';
import { InvertedReportRangeError } from './errors.js';

/** What `wa-lake report` covers (issue #11 item 4). Dates are local days (`YYYY-MM-DD`) in the lake's time zone. */
export interface EngagementReportOptions {
  groupJid: string | null;
  /** First day; null = the first day with activity. */
  from: string | null;
  /** Last day; null = the last day with activity. */
  to: string | null;
  /** A member with no activity in this many days up to `to` is a lurker. */
  lurkerDays: number;
  /** How many members the top list shows. */
  topMembers: number;
}

/** Every number of the report; the HTML, JSON and CSV outputs are views of it. */
export interface EngagementReport {
  timeZone: string;
  groupJid: string | null;
  from: string | null;
  to: string | null;
  lurkerDays: number;
  totals: { messages: number; activeMembers: number; groups: number; reactions: number; joins: number; leaves: number };
  groups: { groupJid: string; subject: string | null; messages: number; activeMembers: number }[];
  messagesPerDay: { day: string; groupJid: string; messages: number }[];
  activeMembers: { day: string; dau: number; wau: number; mau: number }[];
  /** One row per person (issue #11 item 3: a linked member id joins its participants into one person). */
  topMembers: {
    /** The person's participant (LID-first key); several, space-separated, when a member id links them. */
    participantId: string;
    memberId: string | null;
    messages: number;
    replies: number;
    reactionsGiven: number;
  }[];
  joinsLeaves: { day: string; joins: number; leaves: number }[];
  cohorts: { cohortWeek: string; weekOffset: number; cohortSize: number; activeMembers: number; retention: number }[];
  lurkers: { groupJid: string; members: number; lurkers: number }[];
}

// Activity of the range (and the days before it that MAU and the lurker window need) in one narrow temp table: every chart
// below reads it instead of the rollup views (issue #11 item 7: the whole report in under 5 s).
const LOAD_DAYS_SQL = `
  CREATE TEMP TABLE report_days ON COMMIT DROP AS
  SELECT group_jid, participant_id, person_key, member_id, day, messages, replies, reactions_given
    FROM engagement_member_activity_days
   WHERE day BETWEEN LEAST($1::date - 29, $2::date - $4::int + 1) AND $2::date AND ($3::text IS NULL OR group_jid = $3)`;

// The first or last day of the rollup deltas not yet folded (ADR 0012); LEAST and GREATEST skip a null.
const PENDING_DAY = (aggregate: 'min' | 'max'): string =>
  `(SELECT ${aggregate}((at AT TIME ZONE wa_engagement_time_zone())::date) FROM engagement_member_day_deltas)`;

const ACTIVE_MEMBERS_SQL = `
  WITH member_days AS (SELECT DISTINCT person_key, day FROM report_days),
  spans AS (SELECT day, lead(day) OVER (PARTITION BY person_key ORDER BY day) AS next_day FROM member_days),
  deltas AS (
    SELECT day, w.size, 1 AS delta FROM spans, (VALUES (1), (7), (30)) AS w(size)
    UNION ALL
    SELECT LEAST(day + w.size, COALESCE(next_day, day + w.size)), w.size, -1 FROM spans, (VALUES (1), (7), (30)) AS w(size)),
  per_day AS (
    SELECT day, sum(delta) FILTER (WHERE size = 1) AS d1, sum(delta) FILTER (WHERE size = 7) AS d7,
           sum(delta) FILTER (WHERE size = 30) AS d30
      FROM deltas GROUP BY day),
  running AS (
    SELECT c.day::date AS day, sum(COALESCE(p.d1, 0)) OVER w AS dau, sum(COALESCE(p.d7, 0)) OVER w AS wau,
           sum(COALESCE(p.d30, 0)) OVER w AS mau
      FROM generate_series($1::date - 29, $2::date, interval '1 day') AS c(day)
      LEFT JOIN per_day p ON p.day = c.day::date
    WINDOW w AS (ORDER BY c.day))
  SELECT to_char(day, 'YYYY-MM-DD') AS day, dau::int, wau::int, mau::int FROM running WHERE day >= $1::date ORDER BY day`;

const COHORTS_SQL = `
  WITH cohorts AS (
    SELECT group_jid, participant_id, date_trunc('week', min(at) AT TIME ZONE $3)::date AS cohort_week
      FROM engagement_membership_changes
     WHERE change = 'join' AND ($4::text IS NULL OR group_jid = $4)
     GROUP BY 1, 2
    HAVING (min(at) AT TIME ZONE $3)::date BETWEEN $1::date AND $2::date),
  weeks AS (SELECT DISTINCT group_jid, participant_id, date_trunc('week', day)::date AS week
              FROM report_days WHERE day >= $1::date),
  sizes AS (SELECT cohort_week, count(*) AS size FROM cohorts GROUP BY 1)
  SELECT to_char(c.cohort_week, 'YYYY-MM-DD') AS "cohortWeek", ((w.week - c.cohort_week) / 7)::int AS "weekOffset",
         s.size::int AS "cohortSize", count(*)::int AS "activeMembers",
         round(count(*)::numeric / s.size, 4)::float8 AS retention
    FROM cohorts c
    JOIN weeks w ON w.group_jid = c.group_jid AND w.participant_id = c.participant_id AND w.week >= c.cohort_week
    JOIN sizes s ON s.cohort_week = c.cohort_week
   GROUP BY c.cohort_week, w.week, s.size ORDER BY 1, 2`;

/**
 * Reads every figure of the engagement report (issue #11 item 4, architecture.md §13) in one repeatable-read
 * transaction (it writes only its own temp table), so all charts describe the same moment of the lake.
 *
 * @throws InvertedReportRangeError when the first day falls after the last (given, or defaulted from the data).
 * @throws pg.DatabaseError when a query fails (for example an unknown time zone in `engagement_settings`).
 */
export async function readEngagementReport(pool: pg.Pool, options: EngagementReportOptions): Promise<EngagementReport> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await client.query(`SET LOCAL work_mem = '128MB'`);
    const range = await client.query<{ tz: string; from: string | null; to: string | null }>(
      `SELECT wa_engagement_time_zone() AS tz,
              to_char(COALESCE($1::date, LEAST((SELECT min(day) FROM engagement_member_days), ${PENDING_DAY('min')})),
                      'YYYY-MM-DD') AS from,
              to_char(COALESCE($2::date, GREATEST((SELECT max(day) FROM engagement_member_days), ${PENDING_DAY('max')})),
                      'YYYY-MM-DD') AS to`,
      [options.from, options.to]
    );
    const { tz, from, to } = range.rows[0] ?? { tz: 'UTC', from: null, to: null };
    if (from !== null && to !== null && from > to) {
      const defaulted = options.from === null ? 'from' : options.to === null ? 'to' : null;
      throw new InvertedReportRangeError(from, to, defaulted);
    }
    const report = emptyReport(tz, options, from, to);
    if (from === null || to === null) {
      await client.query('COMMIT');
      return report;
    }
    await client.query(LOAD_DAYS_SQL, [from, to, options.groupJid, options.lurkerDays]);
    await client.query('ANALYZE report_days');
    const span = [from, to];
    const q = async <T extends pg.QueryResultRow>(sql: string, values: unknown[] = span): Promise<T[]> =>
      (await client.query<T>(sql, values)).rows;
    const [totals] = await q<EngagementReport['totals']>(
      `SELECT COALESCE(sum(messages), 0)::int AS messages, count(DISTINCT person_key)::int AS "activeMembers",
              count(DISTINCT group_jid)::int AS groups, COALESCE(sum(reactions_given), 0)::int AS reactions,
              0 AS joins, 0 AS leaves
         FROM report_days WHERE day BETWEEN $1 AND $2`
    );
    report.groups = await q(
      `SELECT d.group_jid AS "groupJid", g.subject, sum(d.messages)::int AS messages,
              count(DISTINCT d.person_key)::int AS "activeMembers"
         FROM report_days d LEFT JOIN whatsapp_groups g ON g.jid = d.group_jid
        WHERE d.day BETWEEN $1 AND $2 GROUP BY 1, 2 ORDER BY messages DESC, 1`
    );
    report.messagesPerDay = await q(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, group_jid AS "groupJid", sum(messages)::int AS messages
         FROM report_days WHERE day BETWEEN $1 AND $2 GROUP BY day, group_jid ORDER BY day, group_jid`
    );
    report.activeMembers = await q(ACTIVE_MEMBERS_SQL);
    report.topMembers = await q(
      `SELECT string_agg(DISTINCT participant_id, ' ') AS "participantId", member_id AS "memberId",
              sum(messages)::int AS messages, sum(replies)::int AS replies, sum(reactions_given)::int AS "reactionsGiven"
         FROM report_days WHERE day BETWEEN $1 AND $2
        GROUP BY person_key, member_id ORDER BY messages DESC, "reactionsGiven" DESC, 1 LIMIT $3`,
      [...span, options.topMembers]
    );
    report.joinsLeaves = await q(
      `SELECT to_char((at AT TIME ZONE $3)::date, 'YYYY-MM-DD') AS day,
              count(*) FILTER (WHERE change = 'join')::int AS joins, count(*) FILTER (WHERE change = 'leave')::int AS leaves
         FROM engagement_membership_changes
        WHERE (at AT TIME ZONE $3)::date BETWEEN $1 AND $2 AND ($4::text IS NULL OR group_jid = $4)
        GROUP BY 1 ORDER BY 1`,
      [...span, tz, options.groupJid]
    );
    report.cohorts = await q(COHORTS_SQL, [...span, tz, options.groupJid]);
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
    report.totals = {
      ...(totals ?? report.totals),
      joins: report.joinsLeaves.reduce((sum, row) => sum + row.joins, 0),
      leaves: report.joinsLeaves.reduce((sum, row) => sum + row.leaves, 0),
    };
    await client.query('COMMIT');
    return report;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

function emptyReport(
  timeZone: string,
  options: EngagementReportOptions,
  from: string | null,
  to: string | null
): EngagementReport {
  return {
    timeZone,
    groupJid: options.groupJid,
    from,
    to,
    lurkerDays: options.lurkerDays,
    totals: { messages: 0, activeMembers: 0, groups: 0, reactions: 0, joins: 0, leaves: 0 },
    groups: [],
    messagesPerDay: [],
    activeMembers: [],
    topMembers: [],
    joinsLeaves: [],
    cohorts: [],
    lurkers: [],
  };
}
