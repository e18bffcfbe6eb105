import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Membership changes are told by stubs where a stub states them (issue #27 case 2, ADR 0007 "in every
 * projection", ADR 0019): a `group-participants.update` hint has no time of its own, so its event time is when it
 * was captured, and in an offline flush that is after later stubs of the same member. Ordered by time, the hint
 * of an add read as a second join after the stubbed leave (joins +23 % to +32 %, leaves +25 % to +40 % on
 * 2,000-event captures) while `whatsapp_group_memberships`, folded in precedence order, held one stay. Now the
 * hints of a member are left out of the history wherever a timed fact (a stub) of that member in that group
 * exists — the memberships fold gives the same answer, since there every timed fact outranks every hint. A
 * member known only from hints keeps them, as before. Everything else (snapshots before the first fact, LID
 * and phone collapsed into one history) stays as migration 1765100000001 made it.
 */
export function up(pgm: MigrationBuilder): void {
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
  `);
}

export function down(pgm: MigrationBuilder): void {
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
