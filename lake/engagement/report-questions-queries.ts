import type pg from 'pg';
import { readPeriodActivity } from './report-range-queries.js';

/**
 * The report's parts that answer a community manager's next questions (ADR 0025): totals beside
 * the previous period and the newcomer funnel (levels and the active weeks are counted from the members' days in
 * report-presence.ts, the heatmap read in report-range-queries.ts). Each reads the report's temp table
 * `report_cohorts` where the views would count the whole lake again, and follows the rule of the view named in its
 * doc (docs/engagement.md); a test compares them.
 */

/** The totals of one period. */
export interface ReportTotals {
  messages: number;
  activeMembers: number;
  groups: number;
  reactions: number;
  joins: number;
  leaves: number;
}

/** One total beside the previous period of equal length (`engagement_period_totals`). */
export interface TotalComparison {
  metric: keyof ReportTotals;
  current: number;
  previous: number;
  change: number;
  /** The change in % of the previous value, one decimal, half away from zero; null when the previous is 0. */
  changePercent: number | null;
}

/** Members per level in one month, and how they moved since the month before (`engagement_level_monthly`). */
export interface LevelMonth {
  month: string;
  advocates: number;
  contributors: number;
  participants: number;
  explorers: number;
  movedUp: number;
  held: number;
  movedDown: number;
  new: number;
  gone: number;
}

/** One join week's newcomers, step by step (`engagement_newcomer_funnel`, summed over the report's groups). */
export interface NewcomerCohort {
  cohortWeek: string;
  joined: number;
  firstMessage: number;
  answeredWithin24h: number;
  /** Null while week 4 after the join week lies beyond the report's last day. */
  activeWeek4: number | null;
  activeWeek12: number | null;
}

export type { ActivityHour } from './report-range-queries.js';

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The range of equal length that ends the day before `from` (both ends included, YYYY-MM-DD). */
export function previousPeriod(from: string, to: string): { from: string; to: string } {
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
  return { from: shiftDay(from, -days), to: shiftDay(from, -1) };
}

/** Each total beside its previous value; the rule of `engagement_period_totals`. */
export function compareTotals(current: ReportTotals, previous: ReportTotals): TotalComparison[] {
  return (Object.keys(current) as (keyof ReportTotals)[]).map((metric) => {
    const change = current[metric] - previous[metric];
    const percent = previous[metric] === 0 ? null : (Math.abs(change) * 100) / previous[metric];
    return {
      metric,
      current: current[metric],
      previous: previous[metric],
      change,
      changePercent: percent === null ? null : (Math.sign(change) * Math.round(percent * 10)) / 10 || 0,
    };
  });
}

/**
 * Loads `report_changes`: the scope's joins and leaves (`engagement_membership_changes`) with their local day, read
 * once for the totals of both periods, the joins per day and the cohorts.
 */
export async function loadMembershipChanges(
  client: pg.PoolClient,
  timeZone: string,
  groupJid: string | null
): Promise<void> {
  await client.query(
    `CREATE TEMP TABLE report_changes ON COMMIT DROP AS
     SELECT group_jid, participant_id, at, (at AT TIME ZONE $1)::date AS day, change
       FROM engagement_membership_changes WHERE $2::text IS NULL OR group_jid = $2`,
    [timeZone, groupJid]
  );
}

/**
 * The report's totals over `from`..`to`: messages, groups and reactions from the group-day rollup, joins and leaves
 * from the membership changes of the scope (`report_changes`, loadMembershipChanges), and `activeMembers` (the people active in the range, counted from their days by the
 * caller).
 */
export async function readPeriodTotals(
  client: pg.PoolClient,
  span: { from: string; to: string; timeZone: string; groupJid: string | null },
  activeMembers: number
): Promise<ReportTotals> {
  const activity = await readPeriodActivity(client, span);
  const changes = await client.query<Pick<ReportTotals, 'joins' | 'leaves'>>(
    `SELECT count(*) FILTER (WHERE change = 'join')::int AS joins, count(*) FILTER (WHERE change = 'leave')::int AS leaves
       FROM report_changes WHERE day BETWEEN $1 AND $2`,
    [span.from, span.to]
  );
  const { joins, leaves } = changes.rows[0] ?? { joins: 0, leaves: 0 };
  return {
    messages: activity.messages,
    activeMembers,
    groups: activity.groups,
    reactions: activity.reactions,
    joins,
    leaves,
  };
}

// The messages of `whatsapp_messages` (sender as its phone owner's LID) in one newcomer's group that `condition`
// keeps, read per newcomer through the group's indexes. OFFSET 0 keeps the subquery a unit of its own, so the
// newcomer's group and times reach the index scans.
const messagesOfWindow = (condition: string): string => `
           SELECT w.chat_jid, w.message_id, COALESCE(o.lid, w.sender_id) AS sender_id, w.sent_at, w.reply_to_id
             FROM whatsapp_message_records_attributed w
             LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = w.sender_id
            WHERE w.chat_jid = n.group_jid AND w.is_message AND w.sender_id IS NOT NULL AND ${condition} OFFSET 0`;

// engagement_newcomer_funnel for the report's cohorts (report_cohorts: members whose first join in a group falls in
// the range); first messages up to `to` (the active weeks 4 and 12 are counted by the caller). A member's first
// message is the earliest of its rows in `engagement_first_message_days` (the rollup's exact first message per
// sender, group and day), read as that view reads: the earliest row of the table on a day no visible mark names (one
// index probe per member), or a row of the marked days recounted. "Answered within
// 24 h" is the unanswered list's rule (engagement_unanswered_candidates: the earliest reply of another person,
// mention of the author by another person after it, or, for a conversation start, message of another person in its
// conversation), read only where it can decide: an answer later than 24 h (25 h: the view rounds seconds) after a
// first message changes nothing, so each first message reads its group's messages from 60 minutes before it (so the
// message knows whether it starts a conversation) to 25 h after it, through the (chat_jid, sent_at) index; the
// mentions are those of that window's messages. Replies are read at any time before its end (the reply index): one
// sent "before" its target (a wrong clock) counts as 0 s. No scan of the whole lake; a test compares with the view.
const NEWCOMER_FUNNEL_SQL = `
  WITH members AS MATERIALIZED (SELECT DISTINCT group_jid, participant_id, joined_at FROM report_cohorts),
  keys AS MATERIALIZED (
    SELECT group_jid, participant_id, joined_at, participant_id AS participant_key FROM members
    UNION ALL
    SELECT m.group_jid, m.participant_id, m.joined_at, o.phone_jid FROM members m
      JOIN whatsapp_phone_owners o ON o.lid = m.participant_id),
  stale AS MATERIALIZED (SELECT * FROM engagement_rollup_stale_days()),
  key_firsts AS MATERIALIZED (
    SELECT DISTINCT ON (f.group_jid COLLATE "C", f.participant_key COLLATE "C") f.group_jid, f.participant_key,
           f.sent_at, f.message_id
      FROM (SELECT k.group_jid, k.participant_key, c.day, c.sent_at, c.message_id
              FROM (SELECT DISTINCT group_jid, participant_key FROM keys) k
             CROSS JOIN LATERAL (
                   SELECT c.day, c.sent_at, c.message_id FROM engagement_rollup_first_messages c
                    WHERE c.group_jid = k.group_jid AND c.participant_key = k.participant_key
                      AND (SELECT engagement_rollup_is_current())
                      AND NOT EXISTS (SELECT 1 FROM stale s WHERE s.group_jid = c.group_jid AND s.day = c.day)
                    ORDER BY c.day LIMIT 1) c
            UNION ALL
            SELECT r.group_jid, r.participant_key, r.day, r.sent_at, r.message_id
              FROM engagement_rollup_recount_first_messages() r
             WHERE (r.group_jid, r.participant_key) IN (SELECT group_jid, participant_key FROM keys)) f
     ORDER BY f.group_jid COLLATE "C", f.participant_key COLLATE "C", f.day),
  firsts AS MATERIALIZED (
    SELECT DISTINCT ON (k.group_jid COLLATE "C", k.participant_id COLLATE "C") k.group_jid, f.message_id,
           k.participant_id AS sender_id, f.sent_at, k.joined_at
      FROM keys k JOIN key_firsts f USING (group_jid, participant_key)
     ORDER BY k.group_jid COLLATE "C", k.participant_id COLLATE "C", f.sent_at, f.message_id),
  newcomers AS MATERIALIZED (
    SELECT f.*, COALESCE(i.person_key, f.sender_id) AS person_key,
           f.sent_at + interval '25 hours' AS answer_before
      FROM firsts f LEFT JOIN whatsapp_person_identities i ON i.participant_id = f.sender_id
     WHERE f.joined_at <= f.sent_at AND (f.sent_at AT TIME ZONE $2)::date <= $1::date),
  nearby AS MATERIALIZED (
    SELECT DISTINCT ON (w.chat_jid, w.message_id) w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at,
           w.reply_to_id, COALESCE(i.person_key, w.sender_id) AS person_key
      FROM newcomers n
     CROSS JOIN LATERAL (${messagesOfWindow("w.sent_at >= n.sent_at - interval '60 minutes' AND w.sent_at < n.answer_before")}) w
      LEFT JOIN whatsapp_person_identities i ON i.participant_id = w.sender_id
     ORDER BY w.chat_jid, w.message_id),
  segmented AS MATERIALIZED (
    SELECT x.*, count(*) FILTER (WHERE x.is_start)
                  OVER (PARTITION BY x.group_jid COLLATE "C" ORDER BY x.sent_at, x.message_id) AS segment
      FROM (SELECT y.*, y.reply_to_id IS NULL
                        AND (lag(y.sent_at) OVER w IS NULL OR y.sent_at - lag(y.sent_at) OVER w >= interval '60 minutes')
                        AS is_start
              FROM nearby y WINDOW w AS (PARTITION BY y.group_jid COLLATE "C" ORDER BY y.sent_at, y.message_id)) x),
  answers AS (
    SELECT * FROM (SELECT DISTINCT ON (n.group_jid, n.message_id) n.group_jid, n.message_id, x.sent_at AS at
      FROM newcomers n
      JOIN segmented s ON s.group_jid = n.group_jid AND s.message_id = n.message_id AND s.is_start
      JOIN segmented x ON x.group_jid = s.group_jid AND x.segment = s.segment AND x.person_key <> n.person_key
     ORDER BY n.group_jid, n.message_id, x.sent_at, x.message_id) in_segment
    UNION ALL
    SELECT n.group_jid, n.message_id, r.sent_at
      FROM newcomers n
     CROSS JOIN LATERAL (${messagesOfWindow('w.reply_to_id = n.message_id AND w.sent_at < n.answer_before')}) r
      LEFT JOIN whatsapp_person_identities i ON i.participant_id = r.sender_id
     WHERE COALESCE(i.person_key, r.sender_id) <> n.person_key
    UNION ALL
    SELECT n.group_jid, n.message_id, r.sent_at
      FROM newcomers n
      JOIN nearby r ON r.group_jid = n.group_jid AND r.sent_at > n.sent_at AND r.sent_at < n.answer_before
                   AND r.person_key <> n.person_key
      JOIN whatsapp_message_contexts x ON x.chat_jid = r.group_jid AND x.message_id = r.message_id
     CROSS JOIN LATERAL unnest(x.mentioned_jids) AS j (jid)
      LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = j.jid
     WHERE j.jid <> r.group_jid AND COALESCE(o.lid, j.jid) = n.sender_id),
  firsts_answered AS (
    SELECT n.group_jid, n.sender_id AS participant_id,
           (CASE WHEN a.answered_at IS NOT NULL
                 THEN GREATEST(extract(epoch FROM a.answered_at - n.sent_at), 0) END)::bigint <= 86400 AS is_answered
      FROM newcomers n
      LEFT JOIN (SELECT group_jid, message_id, min(at) AS answered_at FROM answers GROUP BY 1, 2) a
        USING (group_jid, message_id))
  SELECT to_char(c.cohort_week, 'YYYY-MM-DD') AS "cohortWeek", count(*)::int AS joined,
         count(f.participant_id)::int AS "firstMessage", count(*) FILTER (WHERE f.is_answered)::int AS "answeredWithin24h"
    FROM report_cohorts c
    LEFT JOIN firsts_answered f ON f.group_jid = c.group_jid AND f.participant_id = c.participant_id
   GROUP BY c.cohort_week ORDER BY c.cohort_week`;

/**
 * The newcomer funnel of the cohorts in `report_cohorts` (docs/engagement.md "Newcomers"); `activeInWeek` gives, per
 * cohort week, its members active in week 4 and in week 12 after it (null while that week lies beyond `to`).
 */
export async function readNewcomerFunnel(
  client: pg.PoolClient,
  span: { from: string; to: string; timeZone: string },
  activeInWeek: { week4: ReadonlyMap<string, number | null>; week12: ReadonlyMap<string, number | null> }
): Promise<NewcomerCohort[]> {
  const rows = await client.query<Omit<NewcomerCohort, 'activeWeek4' | 'activeWeek12'>>(NEWCOMER_FUNNEL_SQL, [
    span.to,
    span.timeZone,
  ]);
  return rows.rows.map((row) => ({
    ...row,
    activeWeek4: activeInWeek.week4.get(row.cohortWeek) ?? null,
    activeWeek12: activeInWeek.week12.get(row.cohortWeek) ?? null,
  }));
}
