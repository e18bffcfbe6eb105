import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The member-day rollup is computed when it is read, from the message read model itself (ADR 0013, issue #11
 * items 2 and 7; supersedes ADR 0012). The ingest statement no longer writes anything for the rollup: no
 * deltas, no fold, no `prev_*` values, so the tables `engagement_member_days` and
 * `engagement_member_day_deltas` go, with the columns that existed only to move counts between days.
 * `engagement_member_day_totals` keeps its columns and meaning (one row per group, participant key as the
 * event named it, and local day with activity), now a GROUP BY over `whatsapp_message_records` and
 * `whatsapp_message_reactions` in the engagement time zone current at read time; `engagement_member_day_rows`
 * stays as its alias for readers that summed its rows. Every other engagement view reads them unchanged.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    -- The zone is a scalar subquery, so PostgreSQL reads it once per statement (an InitPlan), not once per row.
    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
             sum(a.reactions_given)::int AS reactions_given
        FROM (SELECT chat_jid AS group_jid, sender_id AS participant_key,
                     (sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day, 1 AS messages,
                     (reply_to_id IS NOT NULL)::int AS replies, 0 AS reactions_given
                FROM whatsapp_message_records
               WHERE is_message AND sender_id IS NOT NULL
              UNION ALL
              SELECT chat_jid, reactor_id, (reacted_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, 0, 0, 1
                FROM whatsapp_message_reactions
               WHERE text <> '') a
       GROUP BY a.group_jid, a.participant_key, a.day;

    CREATE OR REPLACE VIEW engagement_member_day_rows AS
      SELECT group_jid, participant_key, day, messages, replies, reactions_given FROM engagement_member_day_totals;

    CREATE OR REPLACE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.member_id, COALESCE(o.lid, d.participant_key)) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given
        FROM engagement_member_day_totals d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5;

    DROP TABLE engagement_member_day_deltas, engagement_member_days;
    ALTER TABLE whatsapp_message_records
      DROP COLUMN prev_is_message, DROP COLUMN prev_sender_id, DROP COLUMN prev_sent_at, DROP COLUMN prev_is_reply;
    ALTER TABLE whatsapp_message_reactions DROP COLUMN prev_text, DROP COLUMN prev_reacted_at;
  `);
}

/** Restores the rollup tables of ADR 0012, recounted from the read model, and the views that read them. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_message_records
      ADD COLUMN prev_is_message boolean NULL, ADD COLUMN prev_sender_id varchar(255) NULL,
      ADD COLUMN prev_sent_at timestamptz NULL, ADD COLUMN prev_is_reply boolean NULL;
    ALTER TABLE whatsapp_message_reactions ADD COLUMN prev_text text NULL, ADD COLUMN prev_reacted_at timestamptz NULL;

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
    CREATE TABLE engagement_member_day_deltas (
      group_jid        varchar(255) NOT NULL,
      participant_key  varchar(255) NOT NULL,
      at               timestamptz NOT NULL,
      messages         integer NOT NULL,
      replies          integer NOT NULL,
      reactions_given  integer NOT NULL
    );
    INSERT INTO engagement_member_days (group_jid, participant_key, day, messages, replies, reactions_given)
    SELECT group_jid, participant_key, day, messages, replies, reactions_given FROM engagement_member_day_totals;

    CREATE OR REPLACE VIEW engagement_member_day_rows AS
      SELECT group_jid, participant_key, day, messages, replies, reactions_given FROM engagement_member_days
      UNION ALL
      SELECT group_jid, participant_key, (at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date,
             messages, replies, reactions_given
        FROM engagement_member_day_deltas;

    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT group_jid, participant_key, day, sum(messages)::int AS messages, sum(replies)::int AS replies,
             sum(reactions_given)::int AS reactions_given
        FROM engagement_member_day_rows
       GROUP BY group_jid, participant_key, day
      HAVING sum(messages) <> 0 OR sum(replies) <> 0 OR sum(reactions_given) <> 0;

    CREATE OR REPLACE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.member_id, COALESCE(o.lid, d.participant_key)) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given
        FROM engagement_member_day_rows d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5
      HAVING sum(d.messages) > 0 OR sum(d.reactions_given) > 0;
  `);
}
