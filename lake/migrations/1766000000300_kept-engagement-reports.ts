import type { MigrationBuilder } from 'node-pg-migrate';

// Whole reports kept for a bounded delay (ADR 0034): one row per report asked for (scope, range, options), the moment
// its numbers describe (`as_of`: every commit before it is counted), and the generation of kept reports it belongs to.
// An erasure, a rebuild or a change of zone moves the generation on and deletes every row: a report read from an
// older generation is never served, and never written once the generation has moved (the writer holds the state row
// `FOR SHARE`).
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_kept_reports_state (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      generation bigint NOT NULL DEFAULT 0
    );
    INSERT INTO engagement_kept_reports_state DEFAULT VALUES;

    CREATE TABLE engagement_kept_reports (
      report_key text PRIMARY KEY,
      generation bigint NOT NULL,
      time_zone text NOT NULL,
      as_of timestamptz NOT NULL,
      last_read_at timestamptz NOT NULL,
      computed_ms integer NOT NULL CHECK (computed_ms >= 0),
      report json NOT NULL
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`DROP TABLE engagement_kept_reports, engagement_kept_reports_state;`);
}
