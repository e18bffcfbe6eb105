import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Outbound send (architecture.md §12, issue #10). `send_api_keys` keeps only the SHA-256 of each key (the key
 * is shown once by `wa-lake api-keys create`). `send_opt_ins` lists the numbers that agreed to
 * receive direct messages from an account. `outbound_messages` is the committed intent: it exists
 * before the caller gets 202, so an accepted request survives Temporal being down (the sweeper starts
 * rows whose `workflow_started_at` is null). `outbound_message_transitions` keeps the time of every
 * state reached; the primary key makes a repeated report of the same state a no-op.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE send_api_keys (
      id           uuid PRIMARY KEY,
      name         varchar(200) NOT NULL,
      account_id   varchar(100) NOT NULL DEFAULT 'default',
      key_hash     char(64) NOT NULL UNIQUE,
      key_prefix   varchar(16) NOT NULL,
      webhook_url  text NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      revoked_at   timestamptz NULL
    );

    CREATE TABLE send_accounts (
      account_id       varchar(100) PRIMARY KEY,
      participant_ids  text[] NOT NULL DEFAULT '{}',
      updated_at       timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE send_opt_ins (
      account_id  varchar(100) NOT NULL,
      phone_jid   varchar(255) NOT NULL,
      note        text NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, phone_jid)
    );

    CREATE TABLE outbound_messages (
      id                   uuid PRIMARY KEY,
      api_key_id           uuid NOT NULL REFERENCES send_api_keys (id),
      account_id           varchar(100) NOT NULL,
      idempotency_key      varchar(255) NOT NULL,
      request_hash         char(64) NOT NULL,
      to_jid               varchar(255) NOT NULL,
      text                 text NULL,
      category             varchar(20) NOT NULL CHECK (category IN ('otp', 'transactional', 'marketing')),
      deliver_by           timestamptz NULL,
      metadata             jsonb NULL,
      state                varchar(20) NOT NULL DEFAULT 'queued'
                           CHECK (state IN ('queued', 'dispatched', 'sent', 'delivered', 'read', 'failed', 'expired')),
      reason_code          varchar(100) NULL,
      wa_message_id        varchar(64) NOT NULL UNIQUE,
      workflow_started_at  timestamptz NULL,
      created_at           timestamptz NOT NULL DEFAULT now(),
      updated_at           timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT outbound_messages_idempotency_unique UNIQUE (api_key_id, idempotency_key)
    );
    CREATE INDEX outbound_messages_unstarted_index ON outbound_messages (created_at) WHERE workflow_started_at IS NULL;
    CREATE INDEX outbound_messages_state_index ON outbound_messages (state);

    CREATE TABLE outbound_message_transitions (
      message_id   uuid NOT NULL REFERENCES outbound_messages (id) ON DELETE CASCADE,
      state        varchar(20) NOT NULL,
      at           timestamptz NOT NULL,
      reason_code  varchar(100) NULL,
      PRIMARY KEY (message_id, state)
    );
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE IF EXISTS outbound_message_transitions, outbound_messages, send_opt_ins, send_accounts, send_api_keys;
  `);
}
