import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Identity merge (architecture.md §9, issue #5): when a LID↔phone alias changes which LID owns a phone JID, the
 * projections recompute every group whose facts or snapshots use that phone JID as a participant key.
 * These indexes find those groups without scanning: a btree on the fact key, and a GIN index for the
 * key-existence operators (`?|`) on snapshot member lists. Rows already projected before this
 * migration are merged by running `wa-lake rebuild` once.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE INDEX whatsapp_membership_facts_participant_id_index ON whatsapp_membership_facts (participant_id);
    CREATE INDEX whatsapp_group_snapshots_members_index ON whatsapp_group_snapshots USING gin (members);
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP INDEX IF EXISTS whatsapp_group_snapshots_members_index;
    DROP INDEX IF EXISTS whatsapp_membership_facts_participant_id_index;
  `);
}
