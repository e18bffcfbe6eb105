import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Time to first response (issue #28 item 2, ADR 0020, docs/engagement.md "First response"). Additive views.
 *
 * - A message **starts a conversation** when it is no reply and its group had no message in the 60 minutes
 *   before it (or it is the group's first message).
 * - Its **first response** is the earliest message of another person (`person_key`: a linked member's accounts
 *   are one person) that replies to it, or that the group receives after it and before the group's next
 *   conversation start. None: unanswered.
 * - `engagement_first_response_daily`: per group and local day of the start, conversations, answered, the median
 *   and p90 minutes to first response (answered ones), and the share of conversations answered within 1 h and 24 h.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE VIEW engagement_first_responses AS
      WITH m AS (
        SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, w.reply_to_id,
               COALESCE(i.member_id, w.sender_id) AS person_key,
               lag(w.sent_at) OVER (PARTITION BY w.chat_jid ORDER BY w.sent_at, w.message_id) AS previous_at
          FROM whatsapp_messages w
          LEFT JOIN whatsapp_member_identities i ON i.participant_id = w.sender_id
         WHERE w.sender_id IS NOT NULL AND w.sent_at IS NOT NULL),
      starts AS (
        SELECT m.*, lead(m.sent_at) OVER (PARTITION BY m.group_jid ORDER BY m.sent_at, m.message_id) AS next_start_at
          FROM m
         WHERE m.reply_to_id IS NULL AND (m.previous_at IS NULL OR m.sent_at - m.previous_at >= interval '60 minutes'))
      SELECT s.group_jid, s.message_id, s.sender_id, s.person_key, s.sent_at AS started_at,
             (s.sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day,
             r.message_id AS first_response_id, r.sender_id AS first_responder_id, r.sent_at AS first_response_at,
             extract(epoch FROM r.sent_at - s.sent_at)::bigint AS response_seconds
        FROM starts s
        LEFT JOIN LATERAL (
          SELECT x.message_id, x.sender_id, x.sent_at FROM m x
           WHERE x.group_jid = s.group_jid AND x.person_key <> s.person_key
             AND (x.sent_at, x.message_id) > (s.sent_at, s.message_id)
             AND (x.reply_to_id = s.message_id OR s.next_start_at IS NULL OR x.sent_at < s.next_start_at)
           ORDER BY x.sent_at, x.message_id LIMIT 1) r ON true;

    CREATE VIEW engagement_first_response_daily AS
      SELECT group_jid, day, count(*)::int AS conversations, count(first_response_at)::int AS answered,
             (percentile_cont(0.5) WITHIN GROUP (ORDER BY response_seconds) / 60.0)::float8 AS median_minutes,
             (percentile_cont(0.9) WITHIN GROUP (ORDER BY response_seconds) / 60.0)::float8 AS p90_minutes,
             (count(*) FILTER (WHERE response_seconds <= 3600))::float8 / count(*) AS answered_within_1h,
             (count(*) FILTER (WHERE response_seconds <= 86400))::float8 / count(*) AS answered_within_24h
        FROM engagement_first_responses
       GROUP BY group_jid, day;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql('DROP VIEW engagement_first_response_daily; DROP VIEW engagement_first_responses;');
}
