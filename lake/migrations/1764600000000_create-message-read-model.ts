import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Message read model (issue #11 item 1, architecture.md §13). Every table is keyed so that applying the same
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
      -- The values this row had before its last update (null after an insert): the statement that
      -- replaces a record reads them back to move its count between rollup days exactly.
      prev_is_message  boolean NULL,
      prev_sender_id   varchar(255) NULL,
      prev_sent_at     timestamptz NULL,
      prev_is_reply    boolean NULL,
      PRIMARY KEY (chat_jid, message_id)
    );
    CREATE INDEX whatsapp_message_records_sender_index ON whatsapp_message_records (sender_id, sent_at);

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
      prev_text        text NULL,
      prev_reacted_at  timestamptz NULL,
      PRIMARY KEY (chat_jid, target_id, reactor_id)
    );

    -- The time zone of engagement days (issue #11 item 6); \`wa-lake rebuild\` sets it from ENGAGEMENT_TIME_ZONE.
    CREATE TABLE engagement_settings (
      id         boolean PRIMARY KEY DEFAULT true CHECK (id),
      time_zone  text NOT NULL DEFAULT 'America/Sao_Paulo'
    );
    INSERT INTO engagement_settings DEFAULT VALUES;
    CREATE FUNCTION wa_engagement_time_zone() RETURNS text LANGUAGE sql STABLE AS $$
      SELECT COALESCE((SELECT time_zone FROM engagement_settings), 'America/Sao_Paulo')
    $$;

    -- Rollup kept up to date by the ingest statement (a view over 1M messages is too slow, issue #11
    -- item 7): per group, participant key as the event named it (resolved to its LID at read time), and
    -- local day. Counts move exactly with every record and reaction change, so they equal a recount.
    CREATE TABLE engagement_member_days (
      group_jid        varchar(255) NOT NULL,
      participant_key  varchar(255) NOT NULL,
      day              date NOT NULL,
      messages         integer NOT NULL DEFAULT 0,
      replies          integer NOT NULL DEFAULT 0,
      reactions_given  integer NOT NULL DEFAULT 0,
      PRIMARY KEY (group_jid, participant_key, day)
    );
    CREATE INDEX engagement_member_days_day_index ON engagement_member_days (day);

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
    DROP FUNCTION IF EXISTS wa_engagement_time_zone();
    DROP TABLE IF EXISTS engagement_member_days, engagement_settings, whatsapp_member_links, whatsapp_message_reactions, whatsapp_message_revokes,
      whatsapp_message_edits, whatsapp_message_records;
  `);
}
