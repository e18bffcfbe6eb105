import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Join cohorts keep every week (issue #27 case 6, ADR 0019): `engagement_cohort_retention` joined the cohorts
 * with their activity, so a week in which no member of a cohort was active had no row instead of 0 % (lifting a
 * retention curve read off the rows), and a cohort with no active member had no row at all. Now each cohort has
 * one row per week from its join week to the last week of the lake's data (activity or membership changes),
 * with `active_members` 0 where nobody was active.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_cohort_retention AS
      WITH cohorts AS (
        SELECT group_jid, participant_id,
               date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
          FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
      sizes AS (SELECT group_jid, cohort_week, count(*)::int AS cohort_size FROM cohorts GROUP BY 1, 2),
      active_weeks AS (
        SELECT DISTINCT group_jid, participant_id, date_trunc('week', day)::date AS week
          FROM engagement_member_activity_days),
      active AS (
        SELECT c.group_jid, c.cohort_week, w.week, count(*)::int AS members
          FROM cohorts c
          JOIN active_weeks w ON w.group_jid = c.group_jid AND w.participant_id = c.participant_id
                             AND w.week >= c.cohort_week
         GROUP BY 1, 2, 3),
      last_week AS (
        SELECT date_trunc('week', GREATEST((SELECT max(week) FROM active_weeks),
                                           (SELECT max(cohort_week) FROM cohorts)))::date AS week)
      SELECT s.group_jid, s.cohort_week, ((w.week::date - s.cohort_week) / 7)::int AS week_offset, s.cohort_size,
             COALESCE(a.members, 0) AS active_members, round(COALESCE(a.members, 0)::numeric / s.cohort_size, 4) AS retention
        FROM sizes s
       CROSS JOIN last_week l
       CROSS JOIN LATERAL generate_series(s.cohort_week, l.week, interval '7 days') AS w(week)
        LEFT JOIN active a ON a.group_jid = s.group_jid AND a.cohort_week = s.cohort_week AND a.week = w.week::date;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_cohort_retention AS
      WITH cohorts AS (
        SELECT group_jid, participant_id,
               date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
          FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
      sizes AS (SELECT group_jid, cohort_week, count(*)::int AS cohort_size FROM cohorts GROUP BY 1, 2),
      active_weeks AS (
        SELECT DISTINCT group_jid, participant_id, date_trunc('week', day)::date AS week
          FROM engagement_member_activity_days)
      SELECT c.group_jid, c.cohort_week, ((w.week - c.cohort_week) / 7)::int AS week_offset, s.cohort_size,
             count(*)::int AS active_members, round(count(*)::numeric / s.cohort_size, 4) AS retention
        FROM cohorts c
        JOIN active_weeks w ON w.group_jid = c.group_jid AND w.participant_id = c.participant_id
                           AND w.week >= c.cohort_week
        JOIN sizes s ON s.group_jid = c.group_jid AND s.cohort_week = c.cohort_week
       GROUP BY c.group_jid, c.cohort_week, w.week, s.cohort_size;
  `);
}
