import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Drops `whatsapp_message_records_sender_index` (issue #11 item 7): no query of the lake uses it — the views
 * resolve the sender through `whatsapp_phone_owners` (`COALESCE(o.lid, r.sender_id)`), which no index on
 * `sender_id` serves, and `wa-lake forget` matches senders by pattern — yet every message insert paid for it
 * on the ingest's hot path. A BI tool that filters by raw sender can add its own index.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`DROP INDEX IF EXISTS whatsapp_message_records_sender_index`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(
    `CREATE INDEX IF NOT EXISTS whatsapp_message_records_sender_index ON whatsapp_message_records (sender_id, sent_at)`
  );
}
