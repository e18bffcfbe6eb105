import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Test and live environments of the send API (issue #31 item 2, ADR 0015). Each key is `test` or `live`; a
 * test key sends only to the account's registered test recipients (`send_test_recipients`), a live key only
 * for an account approved for production (`send_accounts.approved_at`, set by `wa-lake accounts approve`).
 * Keys that exist already become live keys, and their accounts are approved here, so what sent before still
 * sends.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE send_api_keys
      ADD COLUMN environment varchar(4) NOT NULL DEFAULT 'live' CHECK (environment IN ('test', 'live'));
    ALTER TABLE send_accounts ADD COLUMN approved_at timestamptz NULL;
    INSERT INTO send_accounts (account_id, approved_at)
    SELECT DISTINCT account_id, now() FROM send_api_keys
    ON CONFLICT (account_id) DO UPDATE SET approved_at = COALESCE(send_accounts.approved_at, now());

    CREATE TABLE send_test_recipients (
      account_id  varchar(100) NOT NULL,
      jid         varchar(255) NOT NULL,
      note        text NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, jid)
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE IF EXISTS send_test_recipients;
    ALTER TABLE send_accounts DROP COLUMN IF EXISTS approved_at;
    ALTER TABLE send_api_keys DROP COLUMN IF EXISTS environment;
  `);
}
