import type pg from 'pg';
import type { ParticipantExport } from './participant-export.js';

/** Days without a message, reaction or poll vote after which a current member is a lurker (as `report`). */
export const LURKER_DAYS = 30;

/**
 * The person's derived engagement per group for `wa-lake export` (ADR 0014 decision 7), with the criteria in words:
 * active days and totals from `engagement_member_activity_days`, the cohort week of their first join, and a level.
 */
export async function readExportEngagement(
  client: pg.ClientBase,
  jids: string[],
  now: Date
): Promise<ParticipantExport['engagement']> {
  const { rows } = await client.query<{
    group_jid: string;
    active_days: number;
    first_day: string | null;
    last_day: string | null;
    messages: number;
    replies: number;
    reactions_given: number;
    poll_votes: number;
    cohort_week: string | null;
    is_member: boolean;
  }>(
    `WITH activity AS (
       SELECT group_jid, count(DISTINCT day)::int AS active_days, min(day)::text AS first_day, max(day)::text AS last_day,
              sum(messages)::int AS messages, sum(replies)::int AS replies,
              sum(reactions_given)::int AS reactions_given, sum(poll_votes)::int AS poll_votes
         FROM engagement_member_activity_days WHERE participant_id = ANY($1) GROUP BY group_jid),
     cohorts AS (
       SELECT group_jid, date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date::text AS cohort_week
         FROM engagement_membership_changes WHERE change = 'join' AND participant_id = ANY($1) GROUP BY group_jid),
     current AS (
       SELECT DISTINCT group_jid FROM whatsapp_group_memberships WHERE participant_id = ANY($1) AND left_at IS NULL)
     SELECT g.group_jid, COALESCE(a.active_days, 0) AS active_days, a.first_day, a.last_day,
            COALESCE(a.messages, 0) AS messages, COALESCE(a.replies, 0) AS replies,
            COALESCE(a.reactions_given, 0) AS reactions_given, COALESCE(a.poll_votes, 0) AS poll_votes,
            c.cohort_week, m.group_jid IS NOT NULL AS is_member
       FROM (SELECT group_jid FROM activity UNION SELECT group_jid FROM cohorts UNION SELECT group_jid FROM current) g
       LEFT JOIN activity a ON a.group_jid = g.group_jid
       LEFT JOIN cohorts c ON c.group_jid = g.group_jid
       LEFT JOIN current m ON m.group_jid = g.group_jid
      ORDER BY g.group_jid`,
    [jids]
  );
  const since = new Date(now.getTime() - LURKER_DAYS * 86_400_000).toISOString().slice(0, 10);
  return {
    criteria:
      'activeDays: days (ENGAGEMENT_TIME_ZONE) with a message, a reaction or a poll vote; cohortWeek: the Monday ' +
      'of the week of the first join the lake saw; level: "active" with activity in the last ' +
      `${LURKER_DAYS} days, "lurker" when still a member without it (as wa-lake report's lurkers), ` +
      '"former member" otherwise',
    groups: rows.map((row) => ({
      groupJid: row.group_jid,
      activeDays: row.active_days,
      firstActiveDay: row.first_day,
      lastActiveDay: row.last_day,
      messages: row.messages,
      replies: row.replies,
      reactionsGiven: row.reactions_given,
      pollVotes: row.poll_votes,
      cohortWeek: row.cohort_week,
      level: row.last_day !== null && row.last_day >= since ? 'active' : row.is_member ? 'lurker' : 'former member',
    })),
  };
}
