import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The linked account is known by its LID as well as its phone JID (issue #27 case 7, ADR 0019): the collector sends
 * `account_lid` beside `account_jid`, and the raw row keeps it, so a removal that names the account's LID is the
 * account's own (an unobserved period), live and after `wa-lake rebuild`. The account's own membership facts are
 * its coverage, not the joins and leaves of a member: `engagement_membership_changes` leaves them out.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_event_logs ADD COLUMN account_lid varchar(255);
    CREATE OR REPLACE VIEW engagement_membership_changes AS
      SELECT group_jid, participant_id, at, CASE WHEN is_present THEN 'join' ELSE 'leave' END AS change
        FROM (SELECT group_jid, participant_id, key, at, is_present,
                     lag(is_present) OVER (PARTITION BY group_jid, participant_id ORDER BY at, event_id) AS was_present
                FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.participant_id AS key,
                             f.at, f.event_id, f.is_present, f.is_timed,
                             bool_or(f.is_timed) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id))
                               AS has_timed
                        FROM whatsapp_membership_facts f
                        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id
                       WHERE NOT f.is_account) facts
               WHERE is_timed OR NOT has_timed) history
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
        FROM (SELECT group_jid, participant_id, key, at, is_present,
                     lag(is_present) OVER (PARTITION BY group_jid, participant_id ORDER BY at, event_id) AS was_present
                FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.participant_id AS key,
                             f.at, f.event_id, f.is_present, f.is_timed,
                             bool_or(f.is_timed) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id))
                               AS has_timed
                        FROM whatsapp_membership_facts f
                        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id) facts
               WHERE is_timed OR NOT has_timed) history
       WHERE COALESCE(was_present,
                      (SELECT s.members ? history.participant_id OR s.members ? history.key
                         FROM whatsapp_group_snapshots s
                        WHERE s.group_jid = history.group_jid AND s.at < history.at
                          AND (s.is_complete OR s.members ? history.participant_id OR s.members ? history.key)
                        ORDER BY s.at DESC, s.event_id DESC LIMIT 1))
             IS DISTINCT FROM is_present;
    ALTER TABLE whatsapp_event_logs DROP COLUMN IF EXISTS account_lid;
  `);
}
