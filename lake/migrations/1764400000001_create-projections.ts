import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Projections maintained from the raw table (architecture.md §9). Every projection row is a pure function of
 * the set of events applied (order independence): `*_facts` / `*_snapshots` keep the inputs, and
 * the visible tables are recomputed from them. All `*_at` values are event times.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE whatsapp_groups (
      jid               varchar(255) PRIMARY KEY,
      subject           text NULL,
      description       text NULL,
      settings          jsonb NOT NULL DEFAULT '{}'::jsonb,
      fields            jsonb NOT NULL DEFAULT '{}'::jsonb,
      field_versions    jsonb NOT NULL DEFAULT '{}'::jsonb,
      latest_snapshot   jsonb NULL,
      snapshot_at       timestamptz NULL,
      snapshot_event_id uuid NULL,
      created_at        timestamptz NOT NULL DEFAULT now(),
      updated_at        timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE whatsapp_participants (
      id          varchar(255) PRIMARY KEY,
      lid         varchar(255) NULL,
      phone_jid   varchar(255) NULL CHECK (phone_jid IS NULL OR phone_jid NOT LIKE '%@lid'),
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE whatsapp_lid_aliases (
      lid            varchar(255) NOT NULL,
      phone_jid      varchar(255) NOT NULL CHECK (phone_jid NOT LIKE '%@lid'),
      first_seen_at  timestamptz NOT NULL,
      last_seen_at   timestamptz NOT NULL,
      PRIMARY KEY (lid, phone_jid)
    );
    CREATE INDEX whatsapp_lid_aliases_phone_jid_index ON whatsapp_lid_aliases (phone_jid);

    CREATE TABLE whatsapp_group_memberships (
      group_jid       varchar(255) NOT NULL,
      participant_id  varchar(255) NOT NULL,
      role            varchar(20) NOT NULL CHECK (role IN ('member', 'admin', 'superadmin')),
      joined_at       timestamptz NULL,
      left_at         timestamptz NULL,
      updated_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_jid, participant_id)
    );

    CREATE TABLE whatsapp_membership_facts (
      group_jid       varchar(255) NOT NULL,
      participant_id  varchar(255) NOT NULL,
      event_id        uuid NOT NULL,
      at              timestamptz NOT NULL,
      is_present      boolean NOT NULL,
      role            varchar(20) NULL,
      PRIMARY KEY (group_jid, participant_id, event_id)
    );

    CREATE TABLE whatsapp_group_snapshots (
      group_jid  varchar(255) NOT NULL,
      event_id   uuid NOT NULL,
      at         timestamptz NOT NULL,
      members    jsonb NOT NULL,
      PRIMARY KEY (group_jid, event_id)
    );

    CREATE TABLE whatsapp_projection_errors (
      id           bigserial PRIMARY KEY,
      event_id     uuid NOT NULL,
      type         varchar(100) NOT NULL,
      error_name   varchar(255) NOT NULL,
      error_code   varchar(50) NULL,
      message      text NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX whatsapp_projection_errors_event_id_index ON whatsapp_projection_errors (event_id);
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE IF EXISTS whatsapp_projection_errors, whatsapp_group_snapshots, whatsapp_membership_facts,
      whatsapp_group_memberships, whatsapp_lid_aliases, whatsapp_participants, whatsapp_groups;
  `);
}
