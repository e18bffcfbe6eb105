import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Names for participants (issue #28 item 1, ADR 0020, architecture.md §13). Additive: no existing view is
 * replaced, so the attribution rules other migrations give the engagement views stay theirs.
 *
 * - `whatsapp_member_links.name`: the community member's name, from `wa-lake members import` (optional column).
 * - `whatsapp_participant_names`: every push name and verified business name the lake saw on a group message,
 *   per participant (LID-first, as `whatsapp_messages.sender_id`), with the first and last time it was seen.
 *   Read from the raw `messages.upsert` rows, so an erasure that drops the sender's name drops it here too.
 * - `whatsapp_participant_display_names`: one `display_name` per participant: the member's name, else the latest
 *   push name, else the latest business name, else the phone number, else the participant id itself.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_member_links ADD COLUMN name varchar(255) NULL;

    CREATE VIEW whatsapp_participant_names AS
      SELECT COALESCE(o.lid, r.sender_id) AS participant_id, n.kind, n.name,
             min(n.seen_at) AS first_seen_at, max(n.seen_at) AS last_seen_at, count(*)::int AS messages
        FROM (SELECT e.chat_jid, e.payload->'key'->>'id' AS message_id,
                     COALESCE(e.occurred_at, e.captured_at, e.received_at) AS seen_at, v.kind, btrim(v.name) AS name
                FROM whatsapp_event_logs e
               CROSS JOIN LATERAL (VALUES ('push', e.payload->>'pushName'),
                                          ('business', e.payload->>'verifiedBizName')) AS v(kind, name)
               WHERE e.type = 'messages.upsert' AND e.chat_jid IS NOT NULL AND btrim(v.name) <> '') n
        JOIN whatsapp_message_records r ON r.chat_jid = n.chat_jid AND r.message_id = n.message_id
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = r.sender_id
       WHERE r.sender_id IS NOT NULL
       GROUP BY 1, 2, 3;

    CREATE VIEW whatsapp_participant_display_names AS
      WITH people AS (
        SELECT COALESCE(o.lid, p.id) AS participant_id FROM whatsapp_participants p
          LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = p.id
        UNION SELECT participant_id FROM whatsapp_participant_names
        UNION SELECT participant_id FROM whatsapp_member_identities),
      member_names AS (
        SELECT DISTINCT ON (member_id) member_id, name FROM whatsapp_member_links
         WHERE name IS NOT NULL AND btrim(name) <> ''
         ORDER BY member_id, linked_at DESC, participant_id COLLATE "C"),
      seen AS (
        SELECT DISTINCT ON (participant_id, kind) participant_id, kind, name FROM whatsapp_participant_names
         ORDER BY participant_id, kind, last_seen_at DESC, name COLLATE "C"),
      phones AS (
        SELECT DISTINCT ON (lid) lid, phone_jid FROM whatsapp_lid_aliases
         ORDER BY lid, last_seen_at DESC, phone_jid COLLATE "C")
      SELECT p.participant_id, i.member_id, mn.name AS member_name, push.name AS push_name,
             business.name AS business_name,
             CASE WHEN p.participant_id LIKE '%@lid' THEN ph.phone_jid ELSE p.participant_id END AS phone_jid,
             COALESCE(mn.name, push.name, business.name,
                      '+' || split_part(CASE WHEN p.participant_id LIKE '%@lid' THEN ph.phone_jid
                                             ELSE p.participant_id END, '@', 1),
                      p.participant_id) AS display_name,
             CASE WHEN mn.name IS NOT NULL THEN 'member' WHEN push.name IS NOT NULL THEN 'push'
                  WHEN business.name IS NOT NULL THEN 'business'
                  WHEN p.participant_id NOT LIKE '%@lid' OR ph.phone_jid IS NOT NULL THEN 'phone'
                  ELSE 'id' END AS display_name_source
        FROM people p
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = p.participant_id
        LEFT JOIN member_names mn ON mn.member_id = i.member_id
        LEFT JOIN seen push ON push.participant_id = p.participant_id AND push.kind = 'push'
        LEFT JOIN seen business ON business.participant_id = p.participant_id AND business.kind = 'business'
        LEFT JOIN phones ph ON ph.lid = p.participant_id;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP VIEW whatsapp_participant_display_names;
    DROP VIEW whatsapp_participant_names;
    ALTER TABLE whatsapp_member_links DROP COLUMN name;
  `);
}
