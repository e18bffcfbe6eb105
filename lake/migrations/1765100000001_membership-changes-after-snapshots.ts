import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Joins and leaves know the snapshots (issue #11 item 2; a fresh user's finding on 2026-12-01): a member who was
 * already listed in a group snapshot and then only got a role change (`promote`, `demote`) counted as a join,
 * because the first membership fact of a participant was always taken as a first presence. The state before the
 * first fact now comes from the latest snapshot before it that lists the participant (present) or is complete
 * (absent when it does not list them); only with no such snapshot is a first fact a first presence or absence,
 * as before. A later absence seen only in a snapshot is still not a leave (docs/engagement.md, known limits).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_membership_changes AS
      SELECT group_jid, participant_id, at, CASE WHEN is_present THEN 'join' ELSE 'leave' END AS change
        FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.participant_id AS key,
                     f.at, f.is_present,
                     lag(f.is_present) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id)
                                             ORDER BY f.at, f.event_id) AS was_present
                FROM whatsapp_membership_facts f
                LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id) history
       WHERE COALESCE(was_present,
                      (SELECT s.members ? history.participant_id OR s.members ? history.key
                         FROM whatsapp_group_snapshots s
                        WHERE s.group_jid = history.group_jid AND s.at < history.at
                          AND (s.is_complete OR s.members ? history.participant_id OR s.members ? history.key)
                        ORDER BY s.at DESC, s.event_id DESC LIMIT 1))
             IS DISTINCT FROM is_present;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_membership_changes AS
      SELECT group_jid, participant_id, at, CASE WHEN is_present THEN 'join' ELSE 'leave' END AS change
        FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.at, f.is_present,
                     lag(f.is_present) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id)
                                             ORDER BY f.at, f.event_id) AS was_present
                FROM whatsapp_membership_facts f
                LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id) history
       WHERE was_present IS DISTINCT FROM is_present;
  `);
}
