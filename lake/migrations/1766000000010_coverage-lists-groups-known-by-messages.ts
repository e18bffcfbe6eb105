import type { MigrationBuilder } from 'node-pg-migrate';

// The groups of migration `1765950000001`: a group row, an observed period, an unobserved period.
const GROUPS_BEFORE = `
      groups AS (
        SELECT jid AS group_jid FROM whatsapp_groups WHERE only_group IS NULL OR jid = only_group
        UNION SELECT c.group_jid FROM whatsapp_group_coverage c WHERE only_group IS NULL OR c.group_jid = only_group
        UNION SELECT u.group_jid FROM whatsapp_group_unobserved_periods u
               WHERE only_group IS NULL OR u.group_jid = only_group),`;

// The same, and a group with a stored message (`assertGroupInLake`, ADR 0029). The groups with messages are read as a
// loose index scan of `whatsapp_message_records_chat_sent_at_index` (one probe per group, not one row per message),
// and only when every group is asked for: one group is one EXISTS probe.
const GROUPS_WITH_MESSAGES = `
      message_chats AS (
        SELECT (SELECT min(chat_jid) FROM whatsapp_message_records) AS chat_jid WHERE only_group IS NULL
        UNION ALL
        SELECT (SELECT min(m.chat_jid) FROM whatsapp_message_records m WHERE m.chat_jid > mc.chat_jid)
          FROM message_chats mc WHERE mc.chat_jid IS NOT NULL),
      groups AS (
        SELECT jid AS group_jid FROM whatsapp_groups WHERE only_group IS NULL OR jid = only_group
        UNION SELECT c.group_jid FROM whatsapp_group_coverage c WHERE only_group IS NULL OR c.group_jid = only_group
        UNION SELECT u.group_jid FROM whatsapp_group_unobserved_periods u
               WHERE only_group IS NULL OR u.group_jid = only_group
        UNION SELECT mc.chat_jid FROM message_chats mc WHERE mc.chat_jid IS NOT NULL
        UNION SELECT only_group WHERE only_group IS NOT NULL
                AND EXISTS (SELECT 1 FROM whatsapp_message_records m WHERE m.chat_jid = only_group)),`;

// The function of migration `1765950000001` (first event as `FIRST_OBSERVED` there) with its groups from `groups`.
const DAY_COVERAGE = (groups: string): string => `
    CREATE OR REPLACE FUNCTION wa_group_day_coverage(until timestamptz, only_group text DEFAULT NULL)
      RETURNS TABLE (group_jid text, day date, coverage text) LANGUAGE sql STABLE AS $$
      WITH RECURSIVE zone AS (SELECT wa_engagement_time_zone() AS tz),${groups}
      periods AS (
        SELECT g.group_jid,
               COALESCE((SELECT range_agg(tstzrange(c.started_at, c.ended_at, '[]')) FROM whatsapp_group_coverage c
                          WHERE c.group_jid = g.group_jid), '{}'::tstzmultirange) AS observed,
               least(
                 (SELECT min(COALESCE(e.captured_at, e.received_at)) FROM whatsapp_event_logs e
                   WHERE e.chat_jid = g.group_jid),
                 (SELECT min(e.occurred_at) FROM whatsapp_event_logs e
                   WHERE e.chat_jid = g.group_jid AND e.type IN ('messages.upsert', 'export.message'))) AS first_event_at
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

/**
 * `wa_group_day_coverage` lists a group the lake knows only from its messages (a history sync or a replay without
 * a `groups.*` event), by the one rule "is this group in the lake" of `assertGroupInLake` (ADR 0029): a group row, a
 * stored message, or a period a collector observed it. It listed group rows and observed or unobserved periods only,
 * so `wa-lake coverage` said "no groups in the lake" of a lake whose report showed the group's messages.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(DAY_COVERAGE(GROUPS_WITH_MESSAGES));
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(DAY_COVERAGE(GROUPS_BEFORE));
}
