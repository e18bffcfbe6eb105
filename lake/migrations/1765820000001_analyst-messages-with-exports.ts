import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * `analyst_messages` (ADR 0029, docs/engagement.md "Parquet"): the message read model with a chat export's
 * messages beside the captured ones, so `wa-lake export --parquet`'s `messages.parquet` counts what
 * `group_daily` and `member_activity_days` count. `source` is `capture` or `export`; `is_counted` is false for an
 * exported message of a day the lake observed (ADR 0023: those days count only captured messages), so the rows
 * with `is_counted` are the ones the daily views add up. An exported message has no WhatsApp id: `message_id` is
 * its event id, `sender_id` its resolved participant key (`name:<as written>` when unresolved).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE VIEW analyst_messages AS
      SELECT m.chat_jid::text AS chat_jid, m.message_id::text AS message_id, m.sender_id::text AS sender_id,
             m.sent_at, m.kind::text AS kind, m.reply_to_id::text AS reply_to_id, m.mention_count::int AS mention_count,
             m.edit_count::int AS edit_count, m.last_edited_at, m.deleted_at, m.reaction_count::int AS reaction_count,
             'capture'::text AS source, true AS is_counted
        FROM whatsapp_messages m
      UNION ALL
      SELECT x.group_jid::text, x.event_id::text, x.participant_key::text, x.sent_at, x.kind::text, NULL::text, 0, 0,
             NULL::timestamptz, NULL::timestamptz, 0, 'export'::text, COALESCE(d.is_counted, false)
        FROM whatsapp_export_messages x
        LEFT JOIN whatsapp_export_days d ON d.group_jid = x.group_jid AND d.day = x.day;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('DROP VIEW IF EXISTS analyst_messages;');
}
