import type { MigrationBuilder } from 'node-pg-migrate';

// Each message's own reply and mention facts (raw keys, as its record and payload name them): its quoted message and
// quoted participant, and each JID it mentions other than the group. `$3` is the zone; `bound` narrows a recount of
// stale days to the marked ones ($1, $2: the instants), as the member-day recount of migration `1765800000000` does.
const LINKS = (bound: string): string => `
  SELECT r.chat_jid AS group_jid, (r.sent_at AT TIME ZONE $3)::date AS day, r.message_id, r.sender_id AS sender_key,
         r.sent_at, 'reply'::text AS kind, r.reply_to_id AS target_message_id, x.quoted_participant AS target_key
    FROM whatsapp_message_records_attributed r
    LEFT JOIN whatsapp_message_contexts x ON x.chat_jid = r.chat_jid AND x.message_id = r.message_id
   WHERE r.is_message AND r.reply_to_id IS NOT NULL AND r.sender_id IS NOT NULL${bound}
  UNION ALL
  SELECT DISTINCT r.chat_jid, (r.sent_at AT TIME ZONE $3)::date, r.message_id, r.sender_id, r.sent_at, 'mention',
         NULL::varchar, j.jid
    FROM whatsapp_message_records_attributed r
    JOIN whatsapp_message_contexts x ON x.chat_jid = r.chat_jid AND x.message_id = r.message_id
   CROSS JOIN LATERAL unnest(x.mentioned_jids) AS j (jid)
   WHERE r.is_message AND r.sender_id IS NOT NULL AND j.jid <> r.chat_jid${bound}`;

const STALE = `
             AND r.sent_at >= $1 AND r.sent_at < $2
             AND EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s
                          WHERE s.group_jid = r.chat_jid AND s.day = (r.sent_at AT TIME ZONE $3)::date)`;

const quoted = (sql: string): string => sql.replaceAll("'", "''");

const NAMES = `(SELECT DISTINCT ON (participant_id) participant_id, display_name FROM whatsapp_participant_display_names
                 ORDER BY participant_id)`;

// engagement_reply_edges over the links `links` selects: the sender and mentioned JIDs as their phone owners' LIDs,
// a reply's target participant the author of the quoted message when the lake has it as a message, else the quoted
// participant (ADR 0020), with the display names of migration `1765750000003`.
const REPLY_EDGES = (links: string): string => `
  CREATE OR REPLACE VIEW engagement_reply_edges AS
  SELECT v.*, n.display_name AS target_display_name
    FROM (SELECT v.*, n.display_name
            FROM (SELECT l.group_jid::varchar(255) AS group_jid, l.message_id::varchar(255) AS message_id,
                         COALESCE(so.lid, l.sender_key)::varchar(255) AS sender_id, l.sent_at, 'reply'::text AS kind,
                         l.target_message_id::varchar AS target_message_id,
                         COALESCE(tw.lid, t.sender_id, qo.lid, l.target_key)::varchar AS target_participant_id
                    FROM ${links} l
                    LEFT JOIN whatsapp_phone_owners so ON so.phone_jid = l.sender_key
                    LEFT JOIN LATERAL (
                          SELECT a.sender_id FROM whatsapp_message_records_attributed a
                           WHERE a.chat_jid = l.group_jid AND a.message_id = l.target_message_id AND a.is_message
                          OFFSET 0) t ON true
                    LEFT JOIN whatsapp_phone_owners tw ON tw.phone_jid = t.sender_id
                    LEFT JOIN whatsapp_phone_owners qo ON qo.phone_jid = l.target_key
                   WHERE l.kind = 'reply'
                  UNION ALL
                  SELECT DISTINCT l.group_jid::varchar(255), l.message_id::varchar(255),
                         COALESCE(so.lid, l.sender_key)::varchar(255), l.sent_at,
                         'mention', NULL::varchar, COALESCE(o.lid, l.target_key)::varchar
                    FROM ${links} l
                    LEFT JOIN whatsapp_phone_owners so ON so.phone_jid = l.sender_key
                    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = l.target_key
                   WHERE l.kind = 'mention') v
            LEFT JOIN ${NAMES} n ON n.participant_id = v.sender_id) v
    LEFT JOIN ${NAMES} n ON n.participant_id = v.target_participant_id`;

// The view as migrations `1765650000000` and `1765750000003` defined it (for `down`).
const PREVIOUS_REPLY_EDGES = `
  CREATE OR REPLACE VIEW engagement_reply_edges AS
  SELECT v.*, n.display_name AS target_display_name
    FROM (SELECT v.*, n.display_name
            FROM (SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, 'reply'::text AS kind,
                         w.reply_to_id::varchar AS target_message_id,
                         COALESCE(t.sender_id, o.lid, x.quoted_participant)::varchar AS target_participant_id
                    FROM whatsapp_messages w
                    LEFT JOIN whatsapp_messages t ON t.chat_jid = w.chat_jid AND t.message_id = w.reply_to_id
                    LEFT JOIN whatsapp_message_contexts x ON x.chat_jid = w.chat_jid AND x.message_id = w.message_id
                    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = x.quoted_participant
                   WHERE w.reply_to_id IS NOT NULL AND w.sender_id IS NOT NULL
                  UNION ALL
                  SELECT DISTINCT w.chat_jid, w.message_id, w.sender_id, w.sent_at, 'mention', NULL::varchar,
                         COALESCE(o.lid, j.jid)
                    FROM whatsapp_messages w
                    JOIN whatsapp_message_contexts x ON x.chat_jid = w.chat_jid AND x.message_id = w.message_id
                   CROSS JOIN LATERAL unnest(x.mentioned_jids) AS j(jid)
                    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = j.jid
                   WHERE w.sender_id IS NOT NULL AND j.jid <> w.chat_jid) v
            LEFT JOIN ${NAMES} n ON n.participant_id = v.sender_id) v
    LEFT JOIN ${NAMES} n ON n.participant_id = v.target_participant_id`;

/**
 * Reply and mention links kept as a table under the rollup's marks (ADR 0031): the reply edges of one group and month,
 * and a member's replies and mentions given and received, read by group, sender or target key through indexes instead
 * of parsing the payload of every message of the lake.
 *
 * - `engagement_rollup_message_links`: per message of `whatsapp_messages` that quotes a message or mentions a JID, a
 *   `reply` row (the quoted message, the quoted participant as the payload names it) and a `mention` row per JID
 *   mentioned other than the group, with the sender as its record names it: facts of the message's own record,
 *   attribution and payload, so a mark on its group and day covers every change of them. Caught up by
 *   `engagement_rollup_catch_up()` with the other day-level tables (a row of `engagement_rollup_day_tables`).
 * - Payloads change after ingest only by erasure and retention: an UPDATE or DELETE of a message event now marks the
 *   group and day of the record it is the source of (statement-level trigger, as the others; ingest never updates an
 *   event row, so the write path does not pay for it).
 * - `engagement_message_links`: the table except the days a visible mark names, those recounted at the same snapshot:
 *   exact at every read. `engagement_reply_edges` reads it, with phone owners, the quoted message's author and names
 *   resolved when read (they depend on other rows): same columns, same rows.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_rollup_message_links (
      group_jid varchar(255) NOT NULL, day date NOT NULL, message_id varchar(255) NOT NULL, sender_key varchar(255) NOT NULL,
      sent_at timestamptz NOT NULL, kind text NOT NULL, target_message_id varchar(255), target_key text);
    CREATE INDEX engagement_rollup_message_links_index ON engagement_rollup_message_links (group_jid, day);
    CREATE INDEX engagement_rollup_message_links_sent_at_index ON engagement_rollup_message_links (group_jid, sent_at);
    CREATE INDEX engagement_rollup_message_links_sender_index ON engagement_rollup_message_links (sender_key, sent_at);
    CREATE INDEX engagement_rollup_message_links_target_index ON engagement_rollup_message_links (target_key, sent_at);
    CREATE INDEX engagement_rollup_message_links_quoted_index
      ON engagement_rollup_message_links (group_jid, target_message_id) WHERE target_message_id IS NOT NULL;

    CREATE FUNCTION engagement_rollup_recount_message_links()
      RETURNS TABLE (group_jid varchar(255), day date, message_id varchar(255), sender_key varchar(255),
                     sent_at timestamptz, kind text, target_message_id varchar(255), target_key text)
    LANGUAGE plpgsql STABLE ROWS 100 AS $$
    DECLARE tz text := wa_engagement_time_zone(); lo timestamptz; hi timestamptz;
    BEGIN
      IF NOT engagement_rollup_is_current() THEN
        RETURN QUERY EXECUTE '${quoted(LINKS(''))}' USING lo, hi, tz;
        RETURN;
      END IF;
      SELECT min(m.from_at) - interval '1 day', max(m.to_at) + interval '1 day' INTO lo, hi
        FROM engagement_rollup_marks m WHERE m.group_jid IS NOT NULL;
      IF lo IS NULL THEN RETURN; END IF;
      RETURN QUERY EXECUTE '${quoted(LINKS(STALE))}' USING lo, hi, tz;
    END $$;

    CREATE VIEW engagement_message_links AS
      SELECT c.group_jid, c.day, c.message_id, c.sender_key, c.sent_at, c.kind, c.target_message_id, c.target_key
        FROM engagement_rollup_message_links c
       WHERE (SELECT engagement_rollup_is_current())
         AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s WHERE s.group_jid = c.group_jid AND s.day = c.day)
      UNION ALL
      SELECT * FROM engagement_rollup_recount_message_links();

    -- A payload changed or gone after ingest (erasure, retention): the group and day of the record it is the source of.
    CREATE FUNCTION whatsapp_event_logs_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO engagement_rollup_marks (group_jid, from_at, to_at)
      SELECT r.chat_jid, min(r.sent_at), max(r.sent_at)
        FROM (SELECT event_id, chat_jid, payload FROM old_rows UNION ALL SELECT event_id, chat_jid, payload FROM new_rows) e
        JOIN whatsapp_message_records r
          ON r.chat_jid = e.chat_jid AND r.message_id = e.payload #>> '{key,id}' AND r.record_event_id = e.event_id
       GROUP BY r.chat_jid, date_trunc('day', r.sent_at AT TIME ZONE 'UTC');
      RETURN NULL;
    END $$;
    CREATE FUNCTION whatsapp_event_logs_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO engagement_rollup_marks (group_jid, from_at, to_at)
      SELECT r.chat_jid, min(r.sent_at), max(r.sent_at)
        FROM old_rows e
        JOIN whatsapp_message_records r
          ON r.chat_jid = e.chat_jid AND r.message_id = e.payload #>> '{key,id}' AND r.record_event_id = e.event_id
       GROUP BY r.chat_jid, date_trunc('day', r.sent_at AT TIME ZONE 'UTC');
      RETURN NULL;
    END $$;
    CREATE TRIGGER whatsapp_event_logs_rollup_update AFTER UPDATE ON whatsapp_event_logs
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
      EXECUTE FUNCTION whatsapp_event_logs_rollup_update();
    CREATE TRIGGER whatsapp_event_logs_rollup_delete AFTER DELETE ON whatsapp_event_logs
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION whatsapp_event_logs_rollup_delete();

    ${REPLY_EDGES('engagement_message_links')}
  `);
  pgm.sql(`
    INSERT INTO engagement_rollup_day_tables VALUES ('message_links');
    -- Counted once here, at this transaction's snapshot: a change after it leaves a mark.
    DO $$ BEGIN
      EXECUTE 'INSERT INTO engagement_rollup_message_links ${quoted(LINKS(''))}'
        USING NULL::timestamptz, NULL::timestamptz, wa_engagement_time_zone();
    END $$;
  `);
}

/** The view reads the messages again; the links, their marks and their catch-up go. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DELETE FROM engagement_rollup_day_tables WHERE name = 'message_links';
    ${PREVIOUS_REPLY_EDGES};
    DROP TRIGGER whatsapp_event_logs_rollup_delete ON whatsapp_event_logs;
    DROP TRIGGER whatsapp_event_logs_rollup_update ON whatsapp_event_logs;
    DROP FUNCTION whatsapp_event_logs_rollup_delete(), whatsapp_event_logs_rollup_update();
    DROP VIEW engagement_message_links;
    DROP FUNCTION engagement_rollup_recount_message_links();
    DROP TABLE engagement_rollup_message_links;
  `);
}
