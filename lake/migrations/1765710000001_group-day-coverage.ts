import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Coverage by day in one place (ADR 0016), for `wa-lake coverage`, the report's shading and any dashboard that
 * shades unobserved days by joining on the day:
 *
 * - `wa_group_day_coverage(until, only_group)`: per group (or only `only_group`), each local day in the engagement time
 *   zone from the group's first day in the lake (first event or first observed moment) to the day of `until`:
 *   `full` when one observed period of `whatsapp_group_coverage` holds the whole day, `partly` when one touches it,
 *   `none` otherwise. The day of `until` is at most partly observed unless a period reaches past it.
 * - `whatsapp_group_day_coverage (group_jid, day, coverage)`: the same up to now.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE FUNCTION wa_group_day_coverage(until timestamptz, only_group text DEFAULT NULL)
      RETURNS TABLE (group_jid text, day date, coverage text) LANGUAGE sql STABLE AS $$
      WITH zone AS (SELECT wa_engagement_time_zone() AS tz),
      groups AS (
        SELECT jid AS group_jid FROM whatsapp_groups WHERE only_group IS NULL OR jid = only_group
        UNION SELECT c.group_jid FROM whatsapp_group_coverage c WHERE only_group IS NULL OR c.group_jid = only_group
        UNION SELECT u.group_jid FROM whatsapp_group_unobserved_periods u
               WHERE only_group IS NULL OR u.group_jid = only_group),
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
                               (until AT TIME ZONE zone.tz)::date, interval '1 day') AS d
         WHERE least(p.first_event_at, lower(p.observed)) IS NOT NULL)
      SELECT x.group_jid::text, x.day,
             CASE WHEN x.observed @> x.r THEN 'full' WHEN x.observed && x.r THEN 'partly' ELSE 'none' END
        FROM (SELECT days.*, tstzrange(day::timestamp AT TIME ZONE zone.tz, (day + 1)::timestamp AT TIME ZONE zone.tz, '[)')
                       AS r
                FROM days, zone) x
    $$;

    CREATE VIEW whatsapp_group_day_coverage AS SELECT group_jid, day, coverage FROM wa_group_day_coverage(now());
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP VIEW IF EXISTS whatsapp_group_day_coverage;
    DROP FUNCTION IF EXISTS wa_group_day_coverage(timestamptz, text);
  `);
}
