import type { MigrationBuilder } from 'node-pg-migrate';

// The function of migration `1765710000001` with the group's first event read by `firstEvent`.
const DAY_COVERAGE = (firstEvent: string): string => `
    CREATE OR REPLACE FUNCTION wa_group_day_coverage(until timestamptz, only_group text DEFAULT NULL)
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
               ${firstEvent} AS first_event_at
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
    $$;`;

// When the lake first had an event of the group: its capture time, else (a body without one) its receive time; a
// message (captured, from a history sync, or exported) from its sent time, so the days only history or an export
// filled are listed, as not observed. No time a payload carries about the group itself (`creation`, `subjectTime`).
const FIRST_OBSERVED = `least(
                 (SELECT min(COALESCE(e.captured_at, e.received_at)) FROM whatsapp_event_logs e
                   WHERE e.chat_jid = g.group_jid),
                 (SELECT min(e.occurred_at) FROM whatsapp_event_logs e
                   WHERE e.chat_jid = g.group_jid AND e.type IN ('messages.upsert', 'export.message')))`;

const FIRST_OCCURRED = '(SELECT min(e.occurred_at) FROM whatsapp_event_logs e WHERE e.chat_jid = g.group_jid)';

/**
 * A group's coverage days start at the first event the lake holds of it (ADR 0016, docs/engagement.md
 * "Coverage"): the earliest of the capture time (else receive time) of any of its events, the sent time of any of
 * its messages, and its first observed moment. They started at the earliest `occurred_at`, which for
 * `groups.upsert` is the group's creation time carried in its metadata: of three groups captured the same minute,
 * the one created earlier started days before the others.
 * The index keeps the first capture time of a group one index probe.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE INDEX whatsapp_event_logs_chat_first_seen_index
      ON whatsapp_event_logs (chat_jid, (COALESCE(captured_at, received_at)));
  `);
  pgm.sql(DAY_COVERAGE(FIRST_OBSERVED));
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(DAY_COVERAGE(FIRST_OCCURRED));
  pgm.sql('DROP INDEX IF EXISTS whatsapp_event_logs_chat_first_seen_index;');
}
