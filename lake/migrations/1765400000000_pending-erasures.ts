import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Erasures not yet complete (issue #26 item 2, architecture.md §14): `wa-lake forget` deletes the alias tying a
 * member's phone number to their LID in its first run, so a rerun after a store was unreachable (the outbox, the
 * dead letters) could no longer find the LID. Until a run reaches every store, the erasure keeps here the salted
 * SHA-256 of each identifier's digits it found (never the identifiers); the rerun recognises the member's other
 * identifiers in the outbox and the dead letters by those hashes, and the row is deleted when the erasure is
 * complete.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE whatsapp_pending_erasures (
      id           uuid PRIMARY KEY,
      salt         varchar(64) NOT NULL,
      user_hashes  text[] NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`DROP TABLE IF EXISTS whatsapp_pending_erasures;`);
}
