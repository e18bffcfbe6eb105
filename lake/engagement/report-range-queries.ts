import type pg from 'pg';
import type { EngagementReport } from './engagement-report.js';
import { type MemberPresence, readPresence, dayText } from './report-presence.js';

/**
 * The report's reads of a range of local days from the month-level rollups (ADR 0031): a month's row when the range
 * covers it, or when every row of it lies wholly inside or outside the range; the day rows only of an edge month the
 * range splits (a member active on both sides of `from` in its month). Every read takes an optional group.
 */

type Db = pg.ClientBase;

/** Messages in one local hour of one ISO weekday (1 = Monday), summed over the range (`engagement_activity_hours`). */
export interface ActivityHour {
  weekday: number;
  hour: number;
  messages: number;
}
/** The first and last day with activity of a scope (null when none, or not read). */
export interface ActivityBounds {
  first: string | null;
  last: string | null;
}
/** A report's days and group; `bounds`, when read, the scope's first and last day with activity. */
type Scope = { from: string; to: string; groupJid: string | null; bounds?: ActivityBounds };
const IN_GROUP = '($3::text IS NULL OR group_jid = $3)';

// The members of the scope and the months they were active in, as `month:mask` pairs (report-presence.ts): one row
// per raw participant key, mapped to its participant (phone owner) and person as `engagement_member_activity_days`.
const PRESENCE_SQL = `
  SELECT p.group_jid AS "groupJid", COALESCE(o.lid, p.participant_key) AS "participantId",
         COALESCE(i.person_key, o.lid, p.participant_key) AS "personKey", p.months
    FROM (SELECT group_jid, participant_key,
                 string_agg((month - DATE '1970-01-01')::text || ':' || days::text, ',') AS months
            FROM engagement_member_month_parts
           WHERE month BETWEEN date_trunc('month', $1::date) AND $2::date AND ($3::text IS NULL OR group_jid = $3)
           GROUP BY 1, 2) p
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = p.participant_key
    LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, p.participant_key)`;

/** Every member of the scope with its active days of `first`..`last` (epoch days). */
export async function readMemberPresence(
  client: Db,
  first: number,
  last: number,
  groupJid: string | null
): Promise<MemberPresence[]> {
  const rows = await client.query<Parameters<typeof readPresence>[0][number]>(PRESENCE_SQL, [
    dayText(first),
    dayText(last),
    groupJid,
  ]);
  return readPresence(rows.rows, first, last);
}

// The edge months of the range split by it: some row of the month has days inside and days outside the range.
const SPLIT_MONTHS_SQL = (view: string, inGroup: string): string => `
  SELECT to_char(month, 'YYYY-MM-DD') AS month FROM ${view}
   WHERE month = ANY ($4::date[]) AND ${inGroup}
     AND days & engagement_month_day_mask(month, $1, $2) <> 0 AND days & ~engagement_month_day_mask(month, $1, $2) <> 0
   GROUP BY month`;

const monthOf = (day: string): string => `${day.slice(0, 7)}-01`;
const isLastOfMonth = (day: string): boolean =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).getUTCDate() === 1;

/**
 * The months of the range's ends that rows can have days on both sides of: none at an end on a month's first (last)
 * day, or at the scope's first (last) day with activity (`bounds`), which no row has days before (after).
 */
export function edgeMonths(scope: Scope, bounds: ActivityBounds = { first: null, last: null }): string[] {
  const months = new Set<string>();
  if (!scope.from.endsWith('-01') && scope.from !== bounds.first) months.add(monthOf(scope.from));
  if (!isLastOfMonth(scope.to) && scope.to !== bounds.last) months.add(monthOf(scope.to));
  return [...months];
}

async function splitMonths(client: Db, view: string, scope: Scope, inGroup: string): Promise<string[]> {
  const edges = edgeMonths(scope, scope.bounds);
  if (edges.length === 0) return [];
  const rows = await client.query<{ month: string }>(SPLIT_MONTHS_SQL(view, inGroup), [
    scope.from,
    scope.to,
    scope.groupJid,
    edges,
  ]);
  return rows.rows.map((row) => row.month);
}

// A day row lies in one of the split months ($5, $6: the same month twice when one is split).
const IN_SPLIT_MONTH = `((day >= $5::date AND day < ($5::date + interval '1 month')::date)
                         OR (day >= $6::date AND day < ($6::date + interval '1 month')::date))`;

/** The parameters of a read of month rows ($1–$4) and, when months are split, of their day rows ($5, $6). */
const splitParameters = (scope: Scope, split: readonly string[]): unknown[] =>
  split.length === 0
    ? [scope.from, scope.to, scope.groupJid, split]
    : [scope.from, scope.to, scope.groupJid, split, split[0], split[1] ?? split[0]];

/**
 * Loads `report_member_sums`: per group and participant key, its messages, replies and reactions given in the range
 * (one row per group and key).
 */
export async function loadMemberSums(client: Db, scope: Scope): Promise<void> {
  const split = await splitMonths(client, 'engagement_member_month_parts', scope, IN_GROUP);
  const days = `
    UNION ALL
    SELECT group_jid, participant_key, messages, replies, reactions_given FROM engagement_member_day_totals
     WHERE day BETWEEN $1 AND $2 AND ($3::text IS NULL OR group_jid = $3) AND ${IN_SPLIT_MONTH}`;
  await client.query(
    `CREATE TEMP TABLE report_member_sums ON COMMIT DROP AS
     SELECT group_jid, participant_key, sum(messages)::int AS messages, sum(replies)::int AS replies,
            sum(reactions_given)::int AS reactions_given
       FROM (SELECT group_jid, participant_key, messages, replies, reactions_given FROM engagement_member_month_parts
              WHERE month BETWEEN date_trunc('month', $1::date) AND $2::date AND ($3::text IS NULL OR group_jid = $3)
                AND days & engagement_month_day_mask(month, $1, $2) <> 0 AND month <> ALL ($4::date[])
             ${split.length === 0 ? '' : days}) sums
      GROUP BY 1, 2`,
    splitParameters(scope, split)
  );
}

/**
 * Loads `report_group_days`: the scope's messages and reactions given per group and day of `from`..`to`
 * (`engagement_group_day_totals`), read once for the totals of both periods, the groups and the messages per day.
 */
export async function loadGroupDays(client: Db, scope: Scope): Promise<void> {
  await client.query(
    `CREATE TEMP TABLE report_group_days ON COMMIT DROP AS
     SELECT group_jid, day, sum(messages)::int AS messages, sum(reactions_given)::int AS reactions_given
       FROM engagement_group_day_parts WHERE day BETWEEN $1 AND $2 AND ($3::text IS NULL OR group_jid = $3)
      GROUP BY 1, 2`,
    [scope.from, scope.to, scope.groupJid]
  );
}

/** Messages, groups with activity and reactions of the range (`engagement_period_totals`), from `report_group_days`. */
export async function readPeriodActivity(
  client: Db,
  scope: Scope
): Promise<{ messages: number; groups: number; reactions: number }> {
  const result = await client.query<{ messages: number; groups: number; reactions: number }>(
    `SELECT COALESCE(sum(messages), 0)::int AS messages, count(DISTINCT group_jid)::int AS groups,
            COALESCE(sum(reactions_given), 0)::int AS reactions
       FROM report_group_days WHERE day BETWEEN $1 AND $2`,
    [scope.from, scope.to]
  );
  return result.rows[0] ?? { messages: 0, groups: 0, reactions: 0 };
}

/** The first and last day with activity of the scope (null when none). */
export async function readActivityBounds(client: Db, groupJid: string | null): Promise<ActivityBounds> {
  const result = await client.query<ActivityBounds>(
    `SELECT to_char(min(day), 'YYYY-MM-DD') AS first, to_char(max(day), 'YYYY-MM-DD') AS last
       FROM engagement_group_day_parts WHERE $1::text IS NULL OR group_jid = $1`,
    [groupJid]
  );
  return result.rows[0] ?? { first: null, last: null };
}

/** Each group with activity in the range: its messages, and its active people counted in `activeByGroup`. */
export async function readGroupTotals(
  client: Db,
  scope: Scope,
  activeByGroup: ReadonlyMap<string, number>
): Promise<EngagementReport['groups']> {
  const result = await client.query<EngagementReport['groups'][number]>(
    `SELECT d.group_jid AS "groupJid", g.subject, d.messages, COALESCE(a.active, 0) AS "activeMembers"
       FROM (SELECT group_jid, sum(messages)::int AS messages FROM report_group_days
              WHERE day BETWEEN $1 AND $2 GROUP BY 1) d
       LEFT JOIN unnest($3::text[], $4::int[]) AS a (group_jid, active) ON a.group_jid = d.group_jid
       LEFT JOIN whatsapp_groups g ON g.jid = d.group_jid
      ORDER BY d.messages DESC, 1`,
    [scope.from, scope.to, [...activeByGroup.keys()], [...activeByGroup.values()]]
  );
  return result.rows;
}

/** Messages per day and group of the range (days with activity only). */
export async function readMessagesPerDay(client: Db, scope: Scope): Promise<EngagementReport['messagesPerDay']> {
  const result = await client.query<EngagementReport['messagesPerDay'][number]>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, group_jid AS "groupJid", messages
       FROM report_group_days WHERE day BETWEEN $1 AND $2 ORDER BY day, group_jid`,
    [scope.from, scope.to]
  );
  return result.rows;
}

/**
 * Messages per ISO weekday and local hour over the range (docs/engagement.md "Hours"): the rows summed across groups
 * (`engagement_all_hour_month_parts`, ADR 0032) when no group is asked.
 */
export async function readActivityHours(client: Db, scope: Scope): Promise<ActivityHour[]> {
  const [view, inGroup] =
    scope.groupJid === null
      ? ['engagement_all_hour_month_parts', '$3::text IS NULL']
      : ['engagement_hour_month_parts', 'group_jid = $3'];
  const split = await splitMonths(client, view, scope, inGroup);
  const days = `
    UNION ALL
    SELECT weekday, hour, messages FROM engagement_activity_hours
     WHERE day BETWEEN $1 AND $2 AND ($3::text IS NULL OR group_jid = $3) AND ${IN_SPLIT_MONTH}`;
  const result = await client.query<ActivityHour>(
    `SELECT weekday, hour, sum(messages)::int AS messages
       FROM (SELECT weekday, hour, messages FROM ${view}
              WHERE month BETWEEN date_trunc('month', $1::date) AND $2::date AND ${inGroup}
                AND days & engagement_month_day_mask(month, $1, $2) <> 0 AND month <> ALL ($4::date[])
             ${split.length === 0 ? '' : days}) hours
      GROUP BY 1, 2 ORDER BY 1, 2`,
    splitParameters(scope, split)
  );
  return result.rows;
}

/** Current members per group, and those with no activity in the `lurkerDays` days up to `to` (the lurkers). */
export async function readLurkers(
  client: Db,
  to: string,
  lurkerDays: number,
  groupJid: string | null
): Promise<EngagementReport['lurkers']> {
  const result = await client.query<EngagementReport['lurkers'][number]>(
    `WITH recent AS (
       SELECT DISTINCT p.group_jid, COALESCE(o.lid, p.participant_key) AS participant_id
         FROM engagement_member_month_parts p
         LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = p.participant_key
        WHERE p.month BETWEEN date_trunc('month', $1::date - $2::int + 1) AND $1::date
          AND ($3::text IS NULL OR p.group_jid = $3)
          AND p.days & engagement_month_day_mask(p.month, $1::date - $2::int + 1, $1::date) <> 0)
     SELECT m.group_jid AS "groupJid", count(*)::int AS members,
            count(*) FILTER (WHERE NOT EXISTS (
              SELECT 1 FROM recent r WHERE r.group_jid = m.group_jid AND r.participant_id = m.participant_id))::int AS lurkers
       FROM whatsapp_group_memberships m
      WHERE m.left_at IS NULL AND ($3::text IS NULL OR m.group_jid = $3)
      GROUP BY 1 ORDER BY lurkers DESC, 1`,
    [to, lurkerDays, groupJid]
  );
  return result.rows;
}
