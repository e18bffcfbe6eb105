import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The lake's identity generation (issue #27 case 8, ADR 0019): a counter that `wa-lake forget` and `wa-lake rebuild`
 * bump in the transaction that deletes participant and alias rows. The ingest API skips identity writes for
 * senders it has already committed; every raw-row statement reads the generation, so the API learns in the same
 * snapshot that rows it remembered may be gone, empties its cache and writes what it skipped.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE whatsapp_identity_generation (
      id          boolean PRIMARY KEY DEFAULT true CHECK (id),
      generation  bigint NOT NULL DEFAULT 0
    );
    INSERT INTO whatsapp_identity_generation DEFAULT VALUES;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`DROP TABLE IF EXISTS whatsapp_identity_generation`);
}
