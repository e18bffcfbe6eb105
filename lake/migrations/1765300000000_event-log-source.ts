import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * `whatsapp_event_logs.source` (issue #29 item 1, ADR 0016): where the collector got the item — `live`,
 * `history` (a push WhatsApp sent to the linked device), `on_demand` (an answer to `fetchMessageHistory`) or
 * `replay` (a capture or trail). It is not part of the `event_id`, so a message seen live and in history is
 * one row, and `ON CONFLICT (event_id) DO NOTHING` keeps the first stored copy's source. A body without the field
 * is live, as every body before it was (a replayed trail said so only from now on): existing rows become `live`
 * (a constant default, so PostgreSQL adds the column without rewriting the table).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_event_logs ADD COLUMN source varchar(20) NOT NULL DEFAULT 'live'
      CONSTRAINT whatsapp_event_logs_source_check CHECK (source IN ('live', 'history', 'on_demand', 'replay'));
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('ALTER TABLE whatsapp_event_logs DROP COLUMN IF EXISTS source;');
}
