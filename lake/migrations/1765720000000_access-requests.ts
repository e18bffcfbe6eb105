import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Access and portability requests (LGPD Art. 18 I–II and V, ADR 0014 decision 7): each `wa-lake export` run is a
 * row — who ran it, when, how it read the identifier, what it found (counts) and where it wrote — never the
 * identifier or the data, like `whatsapp_erasure_runs`.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE whatsapp_access_requests (
      id            uuid PRIMARY KEY,
      requested_by  varchar(200) NOT NULL,
      requested_at  timestamptz NOT NULL DEFAULT now(),
      read_as       varchar(20) NOT NULL,
      counts        jsonb NOT NULL,
      written_to    text NOT NULL
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`DROP TABLE IF EXISTS whatsapp_access_requests;`);
}
