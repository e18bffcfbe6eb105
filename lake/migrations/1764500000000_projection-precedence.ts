import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Issue #12 items 1, 3 and 5 (ADR 0007):
 * - `whatsapp_membership_facts.is_timed`: false for a hint timed only by its capture
 *   (`group-participants.update`); every timed fact outranks every hint.
 * - `whatsapp_membership_facts.is_account`: the fact is about the linked account itself.
 * - `whatsapp_group_snapshots.is_complete`: false for a snapshot listing fewer participants than its
 *   `size`; it removes no one.
 * - `whatsapp_event_logs.account_jid`: the linked account's JID as the collector sent it, so a
 *   rebuild tells the account's own removal as live ingest did.
 * - `whatsapp_group_unobserved_periods`: when the account was out of a group (removed or left), so
 *   silence there is not read as inactivity; `ended_at` null while still out. The open one is
 *   mirrored in `whatsapp_groups.unobserved_since` (null: observed).
 * - `whatsapp_groups.field_versions` gain the rank prefix (`1|` timed, `0|` hint). Existing versions
 *   become `1|…`; run `wa-lake rebuild` once to rank the hints already projected.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_membership_facts
      ADD COLUMN is_timed boolean NOT NULL DEFAULT true,
      ADD COLUMN is_account boolean NOT NULL DEFAULT false;
    ALTER TABLE whatsapp_group_snapshots ADD COLUMN is_complete boolean NOT NULL DEFAULT true;
    ALTER TABLE whatsapp_event_logs ADD COLUMN account_jid varchar(255);
    ALTER TABLE whatsapp_groups ADD COLUMN unobserved_since timestamptz;
    CREATE TABLE whatsapp_group_unobserved_periods (
      group_jid   varchar(255) NOT NULL,
      started_at  timestamptz NOT NULL,
      ended_at    timestamptz
    );
    CREATE INDEX whatsapp_group_unobserved_periods_group_index ON whatsapp_group_unobserved_periods (group_jid, started_at);
    CREATE INDEX whatsapp_membership_facts_account_index ON whatsapp_membership_facts (group_jid) WHERE is_account;
    UPDATE whatsapp_groups
       SET field_versions = (SELECT COALESCE(jsonb_object_agg(key, '1|' || value), '{}'::jsonb)
                               FROM jsonb_each_text(field_versions))
     WHERE field_versions <> '{}'::jsonb;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    UPDATE whatsapp_groups
       SET field_versions = (SELECT COALESCE(jsonb_object_agg(key, substr(value, 3)), '{}'::jsonb)
                               FROM jsonb_each_text(field_versions))
     WHERE field_versions <> '{}'::jsonb;
    DROP TABLE IF EXISTS whatsapp_group_unobserved_periods;
    ALTER TABLE whatsapp_groups DROP COLUMN IF EXISTS unobserved_since;
    ALTER TABLE whatsapp_event_logs DROP COLUMN IF EXISTS account_jid;
    ALTER TABLE whatsapp_group_snapshots DROP COLUMN IF EXISTS is_complete;
    DROP INDEX IF EXISTS whatsapp_membership_facts_account_index;
    ALTER TABLE whatsapp_membership_facts DROP COLUMN IF EXISTS is_account, DROP COLUMN IF EXISTS is_timed;
  `);
}
