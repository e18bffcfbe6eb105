import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * `send_idempotency_claims` (ADR 0030): one row per `(api_key_id, idempotency_key)` whose request an ingest API
 * process is accepting right now, so that every process sharing the lake answers a concurrent repeat with 409.
 * `token` is the claiming request's message id; `expires_at` ends a claim its process left behind (a crash).
 * Unlogged: a claim lives for one request, and losing every claim in a PostgreSQL crash only turns a 409 into the
 * replay that the unique index of `outbound_messages` still guarantees.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE UNLOGGED TABLE send_idempotency_claims (
      api_key_id      uuid NOT NULL,
      idempotency_key varchar(255) NOT NULL,
      token           uuid NOT NULL,
      expires_at      timestamptz NOT NULL,
      PRIMARY KEY (api_key_id, idempotency_key)
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('DROP TABLE IF EXISTS send_idempotency_claims;');
}
