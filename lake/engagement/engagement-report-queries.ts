import type pg from 'pg';
import { isPhoneLikeName } from '../../common/phone-like-name.js';
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
  activeMembersPerDay,
  cohortActiveInWeek,
  cohortMemberWeeks,
  cohortRetention,
  type CohortMember,
  countActivePeople,
  countActivePeopleByGroup,
  epochDay,
  levelMonths,
  personDays,
} from './report-presence.js';
import {
  compareTotals,
  loadMembershipChanges,
  previousPeriod,
  readNewcomerFunnel,
  readPeriodTotals,
} from './report-questions-queries.js';
import {
  type ActivityBounds,
  loadGroupDays,
  loadMemberSums,
  readActivityBounds,
  readActivityHours,
  readGroupTotals,
  readLurkers,
  readMemberPresence,
  readMessagesPerDay,
} from './report-range-queries.js';
import { catchUpEngagementRollup } from './rollup-catch-up.js';

export type { EngagementReport, EngagementReportOptions } from './engagement-report.js';

// A chat-export sender no participant is known for counts under `name:<name as written>` (ADR 0023): its display
// name is the name. Summed per participant first (hashed), so only a few rows per person are sorted to list its
// participants; the sums of the range are in `report_member_sums` (report-range-queries.ts).
const TOP_MEMBERS_SQL = `
  WITH participants AS (
    SELECT COALESCE(i.person_key, o.lid, s.participant_key) AS person_key, i.member_id,
           COALESCE(o.lid, s.participant_key) AS participant_id, sum(s.messages) AS messages, sum(s.replies) AS replies,
           sum(s.reactions_given) AS reactions_given
      FROM report_member_sums s
      LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = s.participant_key
      LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, s.participant_key)
     GROUP BY 1, 2, 3),
  top AS (
    SELECT person_key, member_id, array_agg(participant_id::text ORDER BY participant_id) AS "participantIds",
           sum(messages)::int AS messages, sum(replies)::int AS replies, sum(reactions_given)::int AS "reactionsGiven"
      FROM participants GROUP BY person_key, member_id ORDER BY messages DESC, "reactionsGiven" DESC, 3 LIMIT $1),
  named AS (
    SELECT DISTINCT ON (p.person_key) p.person_key, n.display_name, n.display_name_source
      FROM participants p JOIN top USING (person_key)
      JOIN whatsapp_participant_display_names n ON n.participant_id = p.participant_id
     ORDER BY p.person_key, (n.display_name_source IN ('phone', 'id')), p.messages DESC, p.participant_id)
  SELECT CASE WHEN top.person_key = ANY (top."participantIds") THEN top.person_key
              ELSE top."participantIds"[1] END AS "participantId",
         top."participantIds", top.member_id AS "memberId",
         COALESCE(CASE WHEN named.display_name_source IN ('member', 'push', 'business') THEN named.display_name END,
                  top.member_id, named.display_name,
                  CASE WHEN top.person_key LIKE 'name:%' THEN substr(top.person_key, 6) END,
                  top."participantIds"[1]) AS "displayName",
         COALESCE(named.display_name_source = 'phone' AND top.member_id IS NULL, false) AS "displayNameIsPhone",
         top.messages, top.replies, top."reactionsGiven"
    FROM top LEFT JOIN named USING (person_key)
   ORDER BY top.messages DESC, top."reactionsGiven" DESC, 1`;

// The cohorts of the range (first joins of the scope's `report_changes` in it), in a temp table of their own: the
// funnel joins them to its windows.
const LOAD_COHORTS_SQL = `
  CREATE TEMP TABLE report_cohorts ON COMMIT DROP AS
  SELECT group_jid, participant_id, cohort_week, count(*) OVER (PARTITION BY cohort_week) AS size, joined_at
    FROM (SELECT group_jid, participant_id, date_trunc('week', min(at) AT TIME ZONE $3)::date AS cohort_week,
                 min(at) AS joined_at
            FROM report_changes WHERE change = 'join'
           GROUP BY 1, 2
          HAVING (min(at) AT TIME ZONE $3)::date BETWEEN $1::date AND $2::date) joined`;

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
      const { tz, from, to, note, bounds } = await readReportRange(client, options);
      const report = emptyEngagementReport({
        timeZone: tz,
        groupJid: options.groupJid,
        from,
        to,
        lurkerDays: options.lurkerDays,
      });
      report.rangeNote = note;
      if (from === null || to === null) {
        // A group no member ever wrote in has no day to default the range from, and its members are all lurkers
        // whatever the last day: counted as the all-groups report counts them.
        if (options.groupJid !== null)
          report.lurkers = await readLurkers(
            client,
            options.to ?? new Date().toISOString().slice(0, 10),
            options.lurkerDays,
            options.groupJid
          );
        return report;
      }
      await fillReport(client, report, { from, to, timeZone: tz, groupJid: options.groupJid, bounds }, options);
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
 * The lake's time zone and the report's days: the asked ones, an open end filled from the first or last day with
 * activity of the scope (null when there is none). A filled end that would make the range longer than
 * MAX_REPORT_DAYS is moved in to fit it (the last MAX_REPORT_DAYS days up to the last day, or the first ones from the
 * first day), and `note` says so.
 * @throws InvertedReportRangeError, or ReportRangeTooLongError when both ends were asked.
 */
async function readReportRange(
  client: pg.ClientBase,
  options: EngagementReportOptions
): Promise<{ tz: string; from: string | null; to: string | null; note: string | null; bounds: ActivityBounds }> {
  const zone = await client.query<{ tz: string }>('SELECT wa_engagement_time_zone() AS tz');
  const tz = zone.rows[0]?.tz ?? 'UTC';
  const bounds =
    options.from !== null && options.to !== null
      ? { first: null, last: null }
      : await readActivityBounds(client, options.groupJid);
  const from = options.from ?? bounds.first;
  const to = options.to ?? bounds.last;
  if (from !== null && to !== null && from > to) {
    const defaulted = options.from === null ? 'from' : options.to === null ? 'to' : null;
    throw new InvertedReportRangeError(from, to, defaulted);
  }
  if (from === null || to === null) return { tz, from, to, note: null, bounds };
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
  if (days <= MAX_REPORT_DAYS) return { tz, from, to, note: null, bounds };
  if (options.from !== null && options.to !== null) throw new ReportRangeTooLongError(from, to, days);
  const spans = `the activity from ${from} to ${to} spans ${String(days)} days, more than the ${String(MAX_REPORT_DAYS)} one report covers`;
  if (options.from === null) {
    const first = shiftDay(to, 1 - MAX_REPORT_DAYS);
    return {
      tz,
      from: first,
      to,
      note: `${spans}: this report covers the last ${String(MAX_REPORT_DAYS)}, ${first} to ${to}`,
      bounds,
    };
  }
  const last = shiftDay(from, MAX_REPORT_DAYS - 1);
  return {
    tz,
    from,
    to: last,
    note: `${spans}: this report covers the first ${String(MAX_REPORT_DAYS)}, ${from} to ${last}`,
    bounds,
  };
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Fills every section of `report` over `scope`: sums from the month and group-day rollups, and the figures that count
 * people per day, week or month from the members' days, read once from the month masks (ADR 0031) as far back as
 * DAU/WAU/MAU (29 days), the previous period and the levels (three months before the first month) need. The
 * membership changes and the group days are read once into temp tables (ADR 0032).
 */
async function fillReport(
  client: pg.PoolClient,
  report: EngagementReport,
  scope: { from: string; to: string; timeZone: string; groupJid: string | null; bounds: ActivityBounds },
  options: EngagementReportOptions
): Promise<void> {
  const { from, to, timeZone: tz } = scope;
  const span = [from, to];
  const q = async <T extends pg.QueryResultRow>(sql: string, values: unknown[] = span): Promise<T[]> =>
    (await client.query<T>(sql, values)).rows;
  const previous = previousPeriod(from, to);
  const monthsBefore = new Date(Date.parse(`${from.slice(0, 7)}-01T00:00:00Z`));
  monthsBefore.setUTCMonth(monthsBefore.getUTCMonth() - 3);
  const first = Math.min(
    epochDay(shiftDay(from, -29)),
    epochDay(previous.from),
    epochDay(monthsBefore.toISOString().slice(0, 10))
  );
  const [fromDay, toDay] = [epochDay(from), epochDay(to)];
  const members = await readMemberPresence(client, first, toDay, scope.groupJid);
  const people = personDays(members);
  await loadMembershipChanges(client, tz, scope.groupJid);
  await loadGroupDays(client, { ...scope, from: previous.from });
  const totals = await readPeriodTotals(client, scope, countActivePeople(people, fromDay, toDay));
  const previousTotals = await readPeriodTotals(
    client,
    { ...scope, ...previous },
    countActivePeople(people, epochDay(previous.from), epochDay(previous.to))
  );
  report.previousPeriod = { ...previous, totals: previousTotals };
  report.totalsComparison = compareTotals(totals, previousTotals);
  await loadMemberSums(client, scope);
  report.groups = await readGroupTotals(client, scope, countActivePeopleByGroup(members, fromDay, toDay));
  report.messagesPerDay = await readMessagesPerDay(client, scope);
  report.activeMembers = activeMembersPerDay(people, fromDay, toDay);
  report.topMembers = (await q<EngagementReport['topMembers'][number]>(TOP_MEMBERS_SQL, [options.topMembers])).map(
    (member) => ({ ...member, displayNameIsPhone: member.displayNameIsPhone || isPhoneLikeName(member.displayName) })
  );
  report.joinsLeaves = await q(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, count(*) FILTER (WHERE change = 'join')::int AS joins,
            count(*) FILTER (WHERE change = 'leave')::int AS leaves
       FROM report_changes WHERE day BETWEEN $1 AND $2 GROUP BY 1 ORDER BY 1`
  );
  await client.query(LOAD_COHORTS_SQL, [...span, tz]);
  await client.query('ANALYZE report_cohorts');
  const cohort = await q<CohortMember>(
    `SELECT group_jid AS "groupJid", participant_id AS "participantId", to_char(cohort_week, 'YYYY-MM-DD') AS "cohortWeek"
       FROM report_cohorts`,
    []
  );
  const weeks = cohortMemberWeeks(members, cohort, fromDay, toDay);
  report.cohorts = cohortRetention(cohort, weeks, toDay);
  report.newcomerFunnel = await readNewcomerFunnel(client, scope, {
    week4: cohortActiveInWeek(cohort, weeks, 4, toDay),
    week12: cohortActiveInWeek(cohort, weeks, 12, toDay),
  });
  report.levels = levelMonths(people, fromDay, toDay);
  report.activityHours = await readActivityHours(client, scope);
  report.lurkers = await readLurkers(client, to, options.lurkerDays, options.groupJid);
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
