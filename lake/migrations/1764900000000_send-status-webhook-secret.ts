import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Status webhooks of outbound send (issue #10 item 8, ADR 0011): each API key with a webhook URL gets
 * its own Standard Webhooks signing secret. Unlike the API key it cannot be hashed (the sender signs
 * with it), so the column holds it sealed by `common/webhook-secret-box.ts` (`aes256gcm:<keyId>:…`
 * under `PAYLOAD_ENCRYPTION_KEYS`, or `clear:…` when no key is configured). Keys created before this
 * migration have none and send no status webhooks until recreated.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE send_api_keys ADD COLUMN webhook_secret text NULL`);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`ALTER TABLE send_api_keys DROP COLUMN IF EXISTS webhook_secret`);
}
