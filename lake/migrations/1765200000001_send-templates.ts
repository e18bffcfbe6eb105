import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Message templates of outbound send (issue #31 item 1, ADR 0015). A template has a friendly name unique per
 * account and numbered versions; each version keeps its body (with `{{variable}}` placeholders), the variables
 * it declares and its state: `draft` → `approved` → `archived`. A message sent from a template records the
 * template and the version it rendered (`outbound_messages.template_id`, `template_version`); its `text` is the
 * rendered text, fixed at accept time.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE send_templates (
      id          uuid PRIMARY KEY,
      account_id  varchar(100) NOT NULL,
      name        varchar(100) NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT send_templates_name_unique UNIQUE (account_id, name)
    );

    CREATE TABLE send_template_versions (
      template_id  uuid NOT NULL REFERENCES send_templates (id) ON DELETE CASCADE,
      version      int NOT NULL CHECK (version >= 1),
      body         text NOT NULL,
      variables    text[] NOT NULL DEFAULT '{}',
      status       varchar(10) NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'approved', 'archived')),
      created_at   timestamptz NOT NULL DEFAULT now(),
      approved_at  timestamptz NULL,
      archived_at  timestamptz NULL,
      PRIMARY KEY (template_id, version)
    );

    ALTER TABLE outbound_messages
      ADD COLUMN template_id uuid NULL REFERENCES send_templates (id),
      ADD COLUMN template_version int NULL;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE outbound_messages DROP COLUMN IF EXISTS template_id, DROP COLUMN IF EXISTS template_version;
    DROP TABLE IF EXISTS send_template_versions, send_templates;
  `);
}
