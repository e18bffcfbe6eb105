import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Every pseudonym `wa-lake forget` left is named "erased member" (ADR 0029): `whatsapp_participant_display_names`
 * had a row only for a participant some projection knew (a membership, a seen name, a member link), so the pseudonym
 * of a member erased without one, or of a chat-export sender erased by name (`name:Bob`), had no name and the report
 * showed it by its id. The view now also lists each pseudonym of `whatsapp_erasure_tombstones`, which every run
 * writes; the columns and every other row are unchanged.
 */
const DISPLAY_NAMES = (isNamingTombstones: boolean): string => `
    CREATE OR REPLACE VIEW whatsapp_participant_display_names AS
      WITH people AS (
        SELECT COALESCE(o.lid, p.id) AS participant_id FROM whatsapp_participants p
          LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = p.id
        UNION SELECT participant_id FROM whatsapp_participant_names
        UNION SELECT participant_id FROM whatsapp_member_identities${
          isNamingTombstones ? '\n        UNION SELECT pseudonym::varchar(255) FROM whatsapp_erasure_tombstones' : ''
        }),
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
             CASE WHEN p.participant_id LIKE '%@erased' THEN NULL::varchar(255) WHEN p.participant_id LIKE '%@lid' THEN ph.phone_jid ELSE p.participant_id END AS phone_jid,
             COALESCE(CASE WHEN p.participant_id LIKE '%@erased' THEN 'erased member'::varchar END, mn.name, push.name, business.name,
                      '+' || split_part(CASE WHEN p.participant_id LIKE '%@lid' THEN ph.phone_jid
                                             ELSE p.participant_id END, '@', 1),
                      p.participant_id) AS display_name,
             CASE WHEN p.participant_id LIKE '%@erased' THEN 'erased' WHEN mn.name IS NOT NULL THEN 'member' WHEN push.name IS NOT NULL THEN 'push'
                  WHEN business.name IS NOT NULL THEN 'business'
                  WHEN p.participant_id NOT LIKE '%@lid' OR ph.phone_jid IS NOT NULL THEN 'phone'
                  ELSE 'id' END AS display_name_source
        FROM people p
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = p.participant_id
        LEFT JOIN member_names mn ON mn.member_id = i.member_id
        LEFT JOIN seen push ON push.participant_id = p.participant_id AND push.kind = 'push'
        LEFT JOIN seen business ON business.participant_id = p.participant_id AND business.kind = 'business'
        LEFT JOIN phones ph ON ph.lid = p.participant_id;`;

export function up(pgm: MigrationBuilder): void {
  pgm.sql(DISPLAY_NAMES(true));
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(DISPLAY_NAMES(false));
}
