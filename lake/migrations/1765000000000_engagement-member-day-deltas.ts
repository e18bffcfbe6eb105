import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Rollup deltas (issue #11 item 7, ADR 0012). The ingest statement no longer upserts
 * `engagement_member_days`: it appends the exact change each record or reaction makes (+1 on the new
 * activity, −1 on the replaced one, with its event time) to `engagement_member_day_deltas`, a heap with no
 * index, and the ingest API folds them into `engagement_member_days` every second
 * (`db/member-day-deltas.ts`). The view `engagement_member_day_totals` adds the deltas not yet folded, so
 * every reader sees the rollup exact at commit, as before; `engagement_member_activity_days` reads it.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_member_day_deltas (
      group_jid        varchar(255) NOT NULL,
      participant_key  varchar(255) NOT NULL,
      -- Event time; the fold turns it into a local day in the zone current at that moment.
      at               timestamptz NOT NULL,
      messages         integer NOT NULL,
      replies          integer NOT NULL,
      reactions_given  integer NOT NULL
    );

    -- Folded rows and pending deltas, not summed: the views below sum them by their own keys.
    CREATE VIEW engagement_member_day_rows AS
      SELECT group_jid, participant_key, day, messages, replies, reactions_given FROM engagement_member_days
      UNION ALL
      SELECT group_jid, participant_key, (at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date,
             messages, replies, reactions_given
        FROM engagement_member_day_deltas;

    CREATE VIEW engagement_member_day_totals AS
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

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    INSERT INTO engagement_member_days AS t (group_jid, participant_key, day, messages, replies, reactions_given)
    SELECT group_jid, participant_key, (at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date,
           sum(messages), sum(replies), sum(reactions_given)
      FROM engagement_member_day_deltas GROUP BY 1, 2, 3
    ON CONFLICT (group_jid, participant_key, day) DO UPDATE SET
      messages = t.messages + excluded.messages, replies = t.replies + excluded.replies,
      reactions_given = t.reactions_given + excluded.reactions_given;

    CREATE OR REPLACE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.member_id, COALESCE(o.lid, d.participant_key)) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given
        FROM engagement_member_days d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5
      HAVING sum(d.messages) > 0 OR sum(d.reactions_given) > 0;

    DROP VIEW engagement_member_day_totals, engagement_member_day_rows;
    DROP TABLE engagement_member_day_deltas;
  `);
}
