import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Send quotas per API key (issue #31 item 3, ADR 0015): optional `daily_limit` / `monthly_limit` on the key,
 * and one `send_api_key_usage` row per limited key holding the current UTC day's and month's accepted count.
 * The accept statement (`db/send-intent-statement.ts`) locks and updates that row in the same statement
 * that inserts the messages, so concurrent requests can never pass the limit. The row is created with the
 * key (`SendAdminRepository.createApiKey`); `granted` is how many the last statement took, read back by it.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE send_api_keys
      ADD COLUMN daily_limit int NULL CHECK (daily_limit >= 0),
      ADD COLUMN monthly_limit int NULL CHECK (monthly_limit >= 0);

    CREATE TABLE send_api_key_usage (
      api_key_id  uuid PRIMARY KEY REFERENCES send_api_keys (id) ON DELETE CASCADE,
      day         date NOT NULL,
      day_used    int NOT NULL DEFAULT 0,
      month       date NOT NULL,
      month_used  int NOT NULL DEFAULT 0,
      granted     int NOT NULL DEFAULT 0
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE IF EXISTS send_api_key_usage;
    ALTER TABLE send_api_keys DROP COLUMN IF EXISTS daily_limit, DROP COLUMN IF EXISTS monthly_limit;
  `);
}
