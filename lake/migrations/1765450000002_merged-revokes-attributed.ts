import type { MigrationBuilder } from 'node-pg-migrate';

const MESSAGES_V1 = `
    CREATE OR REPLACE VIEW whatsapp_messages AS
      SELECT r.chat_jid, r.message_id, COALESCE(o.lid, r.sender_id) AS sender_id, r.sent_at, r.kind,
             r.reply_to_id, r.mention_count, COALESCE(e.edit_count, 0)::int AS edit_count, e.last_edited_at,
             v.deleted_at, COALESCE(x.reaction_count, 0)::int AS reaction_count
        FROM RECORDS r
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = r.sender_id
        LEFT JOIN (SELECT chat_jid, target_id, count(*) AS edit_count, max(edited_at) AS last_edited_at
                     FROM whatsapp_message_edits GROUP BY chat_jid, target_id) e
               ON e.chat_jid = r.chat_jid AND e.target_id = r.message_id
        LEFT JOIN whatsapp_message_revokes v ON v.chat_jid = r.chat_jid AND v.target_id = r.message_id
        LEFT JOIN (SELECT chat_jid, target_id, count(*) AS reaction_count
                     FROM whatsapp_reactions GROUP BY chat_jid, target_id) x
               ON x.chat_jid = r.chat_jid AND x.target_id = r.message_id
       WHERE r.is_message;

    CREATE OR REPLACE VIEW engagement_member_received_days AS
      SELECT t.chat_jid AS group_jid, COALESCE(o.lid, t.sender_id) AS participant_id,
             (a.at AT TIME ZONE wa_engagement_time_zone())::date AS day,
             count(*) FILTER (WHERE a.activity = 'reaction')::int AS reactions_received,
             count(*) FILTER (WHERE a.activity = 'edit')::int AS edits,
             count(*) FILTER (WHERE a.activity = 'deletion')::int AS deletions
        FROM (SELECT chat_jid, target_id, reacted_at AS at, 'reaction' AS activity FROM whatsapp_reactions
              UNION ALL SELECT chat_jid, target_id, edited_at, 'edit' FROM whatsapp_message_edits
              UNION ALL SELECT chat_jid, target_id, deleted_at, 'deletion' FROM whatsapp_message_revokes) a
        JOIN RECORDS t ON t.chat_jid = a.chat_jid AND t.message_id = a.target_id
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = t.sender_id
       WHERE t.is_message AND t.sender_id IS NOT NULL
       GROUP BY 1, 2, 3;

    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
             sum(a.reactions_given)::int AS reactions_given
        FROM (SELECT chat_jid AS group_jid, sender_id AS participant_key,
                     (sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day, 1 AS messages,
                     (reply_to_id IS NOT NULL)::int AS replies, 0 AS reactions_given
                FROM RECORDS
               WHERE is_message AND sender_id IS NOT NULL
              UNION ALL
              SELECT chat_jid, reactor_id, (reacted_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, 0, 0, 1
                FROM whatsapp_message_reactions
               WHERE text <> '') a
       GROUP BY a.group_jid, a.participant_key, a.day;
`;

/**
 * A revoke Baileys' buffer merged into its target counts for the target's author (issue #27 case 3, ADR 0019).
 * While the collector is offline, Baileys merges a delete into the message it deletes: the item keeps the
 * message's time but carries the revoke's key (its id, the revoker as participant), `messageStubType` 1 and no
 * content, so the read model recorded the message under the revoke's id and the revoker — an admin got the
 * message and the deletion, the author lost it, and replies and reactions aimed at the original joined nothing.
 * The revoke protocol message of the same batch names both: its own id and, in `protocolMessage.key`, the
 * original's id and author. `whatsapp_message_revokes` now keeps them (`revoke_id`, `target_sender_id`), and the
 * view `whatsapp_message_records_attributed` gives a merged record (rank 3) the original's id and author when a
 * revoke of that id is stored — unless the original itself is stored too (a second collector saw it live), which
 * then stands alone. Every view that read the records reads it instead; `wa-lake rebuild` fills the new columns.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_message_revokes ADD COLUMN revoke_id varchar(255) NULL,
      ADD COLUMN target_sender_id varchar(255) NULL;
    CREATE INDEX whatsapp_message_revokes_revoke_id_index ON whatsapp_message_revokes (chat_jid, revoke_id)
      WHERE revoke_id IS NOT NULL;

    CREATE VIEW whatsapp_message_records_attributed AS
      SELECT chat_jid, message_id, kind, is_message, sender_id, sent_at, reply_to_id, mention_count, record_rank,
             record_event_id
        FROM whatsapp_message_records
       WHERE record_rank <> 3
      UNION ALL
      SELECT r.chat_jid, COALESCE(v.target_id, r.message_id), r.kind,
             r.is_message AND NOT EXISTS (SELECT 1 FROM whatsapp_message_records o
                                           WHERE o.chat_jid = r.chat_jid AND o.message_id = v.target_id AND o.is_message),
             COALESCE(v.target_sender_id, r.sender_id), r.sent_at, r.reply_to_id, r.mention_count, r.record_rank,
             r.record_event_id
        FROM whatsapp_message_records r
        LEFT JOIN LATERAL (SELECT target_id, target_sender_id FROM whatsapp_message_revokes v
                            WHERE v.chat_jid = r.chat_jid AND v.revoke_id = r.message_id
                            ORDER BY target_id LIMIT 1) v ON true
       WHERE r.record_rank = 3;
  ${MESSAGES_V1.replaceAll('RECORDS', 'whatsapp_message_records_attributed')}`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`${MESSAGES_V1.replaceAll('RECORDS', 'whatsapp_message_records')}
    DROP VIEW whatsapp_message_records_attributed;
    DROP INDEX whatsapp_message_revokes_revoke_id_index;
    ALTER TABLE whatsapp_message_revokes DROP COLUMN revoke_id, DROP COLUMN target_sender_id;
  `);
}
