import type { MigrationBuilder } from 'node-pg-migrate';

const totals = (withVotes: boolean): string => `
    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
             sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
        FROM (SELECT chat_jid AS group_jid, sender_id AS participant_key,
                     (sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day, is_message::int AS messages,
                     (is_message AND reply_to_id IS NOT NULL)::int AS replies, 0 AS reactions_given,
                     (NOT is_message)::int AS poll_votes
                FROM whatsapp_message_records_attributed
               WHERE ${withVotes ? "(is_message OR kind = 'poll_vote')" : 'is_message'} AND sender_id IS NOT NULL
              UNION ALL
              SELECT chat_jid, reactor_id, (reacted_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, 0, 0, 1, 0
                FROM whatsapp_message_reactions
               WHERE text <> '') a
       GROUP BY a.group_jid, a.participant_key, a.day;

    CREATE OR REPLACE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.member_id, COALESCE(o.lid, d.participant_key)) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given, sum(d.poll_votes)::int AS poll_votes
        FROM engagement_member_day_totals d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5;
`;

/**
 * Poll voters are active members (issue #27 case 9, ADR 0019): "active" is a message, a reaction or a poll vote, so a
 * community that runs polls no longer reads its voters as lurkers. A vote is still no message: it adds a
 * `poll_votes` column (the last one) to `engagement_member_day_totals` and `engagement_member_activity_days`, and
 * every view that counts active members, lurkers or cohorts from the activity days now sees voters. The one scan
 * of the records reads votes beside messages, so reading costs the same.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(totals(true));
}

/** Votes count as activity no more; the `poll_votes` columns stay (a view keeps its columns), always 0. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(totals(false));
}
