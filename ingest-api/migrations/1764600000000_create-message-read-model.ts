import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Message read model (issue #11 item 1, DESIGN §13). Every table is keyed so that applying the same
 * set of events in any order, once or twice, gives the same rows:
 * - `whatsapp_message_records`: one row per message id named by an upsert; the record with the
 *   greatest (rank, event time, event id) wins (a real message beats its undecryptable placeholder).
 *   Ids of edits, revokes, reactions and votes are kept as non-messages (`is_message = false`), so a
 *   placeholder of theirs never counts as a message.
 * - `whatsapp_message_edits`: one row per edit (Baileys reports each edit twice, with the same time).
 * - `whatsapp_message_revokes`: the earliest delete time per message.
 * - `whatsapp_message_reactions`: the latest reaction per (message, reactor); empty text = removed.
 * - `whatsapp_member_links`: participant → community member id (issue #11 item 3).
 * The view `whatsapp_messages` (next migration) joins them into one row per group message.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE whatsapp_message_records (
      chat_jid         varchar(255) NOT NULL,
      message_id       varchar(255) NOT NULL,
      kind             varchar(20) NOT NULL,
      is_message       boolean NOT NULL,
      sender_id        varchar(255) NULL,
      sent_at          timestamptz NOT NULL,
      reply_to_id      varchar(255) NULL,
      mention_count    integer NOT NULL DEFAULT 0,
      record_rank      smallint NOT NULL,
      record_event_id  uuid NOT NULL,
      PRIMARY KEY (chat_jid, message_id)
    );

    CREATE TABLE whatsapp_message_edits (
      chat_jid   varchar(255) NOT NULL,
      target_id  varchar(255) NOT NULL,
      edited_at  timestamptz NOT NULL,
      PRIMARY KEY (chat_jid, target_id, edited_at)
    );

    CREATE TABLE whatsapp_message_revokes (
      chat_jid    varchar(255) NOT NULL,
      target_id   varchar(255) NOT NULL,
      deleted_at  timestamptz NOT NULL,
      PRIMARY KEY (chat_jid, target_id)
    );

    CREATE TABLE whatsapp_message_reactions (
      chat_jid    varchar(255) NOT NULL,
      target_id   varchar(255) NOT NULL,
      reactor_id  varchar(255) NOT NULL,
      text        text NOT NULL,
      reacted_at  timestamptz NOT NULL,
      event_id    uuid NOT NULL,
      PRIMARY KEY (chat_jid, target_id, reactor_id)
    );

    CREATE TABLE whatsapp_member_links (
      participant_id  varchar(255) PRIMARY KEY,
      member_id       varchar(255) NOT NULL,
      source          varchar(50) NOT NULL DEFAULT 'cli',
      linked_at       timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX whatsapp_member_links_member_id_index ON whatsapp_member_links (member_id);
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP TABLE IF EXISTS whatsapp_member_links, whatsapp_message_reactions, whatsapp_message_revokes,
      whatsapp_message_edits, whatsapp_message_records;
  `);
}
