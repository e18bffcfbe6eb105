import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * A status-webhook endpoint that keeps failing is disabled (ADR 0014 decision 8, after Svix and Convoy):
 * `webhook_failing_since` is the first failed attempt since the last success; `webhook_disabled_at` is set once it
 * has failed for `SEND_WEBHOOK_DISABLE_AFTER_MS` (5 days) or answered 410, with `webhook_disabled_reason`. A
 * disabled key's status changes are not sent until `wa-lake api-keys enable-webhook` clears both.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE send_api_keys
      ADD COLUMN webhook_failing_since timestamptz NULL,
      ADD COLUMN webhook_disabled_at timestamptz NULL,
      ADD COLUMN webhook_disabled_reason varchar(200) NULL;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE send_api_keys
      DROP COLUMN IF EXISTS webhook_failing_since,
      DROP COLUMN IF EXISTS webhook_disabled_at,
      DROP COLUMN IF EXISTS webhook_disabled_reason;
  `);
}
