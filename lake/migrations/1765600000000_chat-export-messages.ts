import type { MigrationBuilder } from 'node-pg-migrate';

const SOURCES = (withExport: boolean): string =>
  `'live', 'history', 'on_demand', 'replay'${withExport ? ", 'export'" : ''}`;

const totals = (withExports: boolean): string => `
    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
             sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
        FROM (SELECT chat_jid AS group_jid, sender_id AS participant_key,
                     (sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day, is_message::int AS messages,
                     (is_message AND reply_to_id IS NOT NULL)::int AS replies, 0 AS reactions_given,
                     (NOT is_message)::int AS poll_votes
                FROM whatsapp_message_records_attributed
               WHERE (is_message OR kind = 'poll_vote') AND sender_id IS NOT NULL
              UNION ALL
              SELECT chat_jid, reactor_id, (reacted_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, 0, 0, 1, 0
                FROM whatsapp_message_reactions
               WHERE text <> ''${
                 withExports
                   ? `
              UNION ALL
              SELECT m.group_jid, m.participant_key, m.day, 1, 0, 0, 0
                FROM whatsapp_export_messages m
                JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted`
                   : ''
               }) a
       GROUP BY a.group_jid, a.participant_key, a.day;
`;

/**
 * Chat exports (issue #30, ADR 0023): messages read from WhatsApp's own "Export chat" files by
 * `wa-lake import-export`, stored as `export.message` rows of `whatsapp_event_logs` with `source = 'export'`.
 * - `whatsapp_export_sender_names`: a name as an export writes it (lower case, trimmed) → the one participant
 *   it names: a `members import` name first (every participant carrying it linked to one member id), else a push
 *   name exactly one participant carried. Anything else stays unresolved.
 * - `whatsapp_export_messages`: each exported message with its sender resolved when read: a phone sender is its
 *   phone JID (the ingest's phone-owner rule makes it its LID), a name sender the participant of its name, else
 *   the key `name:<name as written>` that `wa-lake members link` can link to a member id. A link or a name the
 *   lake learns later re-attributes the messages without a new import.
 * - `whatsapp_export_days`: per group and local day with exported messages, whether the lake observed the day
 *   (it overlaps the group's coverage, or the lake holds a captured message of the group on it) and so whether
 *   the exported messages count (`is_counted`): a day the lake observed is never counted twice.
 * - `engagement_member_day_totals` adds the exported messages of counted days, so every engagement view sees them.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_event_logs DROP CONSTRAINT whatsapp_event_logs_source_check;
    ALTER TABLE whatsapp_event_logs ADD CONSTRAINT whatsapp_event_logs_source_check
      CHECK (source IN (${SOURCES(true)})) NOT VALID;
    ALTER TABLE whatsapp_event_logs VALIDATE CONSTRAINT whatsapp_event_logs_source_check;

    CREATE INDEX whatsapp_event_logs_export_index ON whatsapp_event_logs (chat_jid, occurred_at)
      WHERE type = 'export.message';

    CREATE VIEW whatsapp_export_sender_names AS
      WITH member_names AS (
        SELECT lower(btrim(l.name)) AS name, COALESCE(o.lid, l.participant_id) AS participant_id, l.member_id
          FROM whatsapp_member_links l
          LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = l.participant_id
         WHERE l.name IS NOT NULL AND btrim(l.name) <> ''),
      by_member AS (
        SELECT name, min(participant_id) AS participant_id FROM member_names
         GROUP BY name HAVING count(DISTINCT member_id) = 1),
      by_push AS (
        SELECT lower(name) AS name, min(participant_id) AS participant_id FROM whatsapp_participant_names
         WHERE kind = 'push' GROUP BY lower(name) HAVING count(DISTINCT participant_id) = 1)
      SELECT name, participant_id, 'member' AS source FROM by_member
      UNION ALL
      SELECT p.name, p.participant_id, 'push' FROM by_push p
       WHERE NOT EXISTS (SELECT 1 FROM member_names m WHERE m.name = p.name);

    CREATE VIEW whatsapp_export_messages AS
      SELECT e.event_id, e.chat_jid AS group_jid, e.occurred_at AS sent_at,
             (e.occurred_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day,
             e.payload->'export'->>'kind' AS kind, e.payload->>'pushName' AS sender_name,
             e.payload->'key'->>'participant' AS sender_jid,
             COALESCE(e.payload->'key'->>'participant', n.participant_id, 'name:' || (e.payload->>'pushName'))::varchar(255)
               AS participant_key,
             CASE WHEN e.payload->'key'->>'participant' IS NOT NULL THEN 'phone'
                  WHEN n.participant_id IS NOT NULL THEN n.source ELSE 'unresolved' END AS resolved_by
        FROM whatsapp_event_logs e
        LEFT JOIN whatsapp_export_sender_names n
          ON e.payload->'key'->>'participant' IS NULL AND n.name = lower(btrim(e.payload->>'pushName'))
       WHERE e.type = 'export.message' AND e.occurred_at IS NOT NULL;

    CREATE VIEW whatsapp_export_days AS
      WITH zone AS (SELECT wa_engagement_time_zone() AS tz),
      days AS (
        SELECT e.chat_jid AS group_jid, (e.occurred_at AT TIME ZONE zone.tz)::date AS day, count(*)::int AS messages
          FROM whatsapp_event_logs e, zone
         WHERE e.type = 'export.message' AND e.occurred_at IS NOT NULL
         GROUP BY 1, 2),
      observed AS (
        SELECT group_jid, range_agg(tstzrange(started_at, ended_at, '[]')) AS periods
          FROM whatsapp_group_coverage WHERE group_jid IN (SELECT group_jid FROM days) GROUP BY group_jid),
      captured AS (
        SELECT g.group_jid, c.day
          FROM (SELECT DISTINCT group_jid FROM days) g, zone
         CROSS JOIN LATERAL (
                SELECT DISTINCT (m.sent_at AT TIME ZONE zone.tz)::date AS day FROM whatsapp_message_records m
                 WHERE m.chat_jid = g.group_jid AND m.is_message) c)
      SELECT d.group_jid, d.day, d.messages,
             COALESCE(o.periods && tstzrange(d.day::timestamp AT TIME ZONE zone.tz,
                                             (d.day + 1)::timestamp AT TIME ZONE zone.tz, '[)'), false) AS is_covered,
             (c.day IS NOT NULL) AS has_captured_messages,
             NOT COALESCE(o.periods && tstzrange(d.day::timestamp AT TIME ZONE zone.tz,
                                                 (d.day + 1)::timestamp AT TIME ZONE zone.tz, '[)'), false)
               AND c.day IS NULL AS is_counted
        FROM days d CROSS JOIN zone
        LEFT JOIN observed o ON o.group_jid = d.group_jid
        LEFT JOIN captured c ON c.group_jid = d.group_jid AND c.day = d.day;
  `);
  pgm.sql(totals(true));
}

/** Exported messages count no more; their rows go with the views (a `source` of `export` fits no older lake). */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(totals(false));
  pgm.sql(`
    DROP VIEW whatsapp_export_days;
    DROP VIEW whatsapp_export_messages;
    DROP VIEW whatsapp_export_sender_names;
    DROP INDEX whatsapp_event_logs_export_index;
    DELETE FROM whatsapp_event_logs WHERE source = 'export';
    ALTER TABLE whatsapp_event_logs DROP CONSTRAINT whatsapp_event_logs_source_check;
    ALTER TABLE whatsapp_event_logs ADD CONSTRAINT whatsapp_event_logs_source_check CHECK (source IN (${SOURCES(false)}));
  `);
}
