import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Privacy (architecture.md §14, issue #13 items 3–4).
 * - `whatsapp_event_logs.body_redacted_at`: when retention or erasure removed the row's message content
 *   (ids, times, type, group, participant and message kind stay). The partial index finds the rows
 *   retention still has to visit without scanning redacted ones.
 * - `whatsapp_erasure_runs` and `whatsapp_retention_runs`: one row per run (who, when, counts), never
 *   the erased identifiers or data.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_event_logs ADD COLUMN body_redacted_at timestamptz NULL;
    CREATE INDEX whatsapp_event_logs_unredacted_bodies_index ON whatsapp_event_logs (occurred_at)
      WHERE body_redacted_at IS NULL AND type IN ('messages.upsert', 'messages.update');

    CREATE TABLE whatsapp_erasure_runs (
      id            uuid PRIMARY KEY,
      requested_by  varchar(255) NOT NULL,
      started_at    timestamptz NOT NULL,
      finished_at   timestamptz NOT NULL,
      counts        jsonb NOT NULL,
      not_reached   jsonb NOT NULL
    );

    CREATE TABLE whatsapp_retention_runs (
      id               uuid PRIMARY KEY,
      requested_by     varchar(255) NOT NULL,
      cutoff           timestamptz NOT NULL,
      started_at       timestamptz NOT NULL,
      finished_at      timestamptz NOT NULL,
      redacted_events  integer NOT NULL
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE IF EXISTS whatsapp_retention_runs, whatsapp_erasure_runs;
    DROP INDEX IF EXISTS whatsapp_event_logs_unredacted_bodies_index;
    ALTER TABLE whatsapp_event_logs DROP COLUMN IF EXISTS body_redacted_at;
  `);
}
