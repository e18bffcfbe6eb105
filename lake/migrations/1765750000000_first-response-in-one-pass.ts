import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Time to first response and the unanswered list in one pass over the messages (ADR 0025; the rules are ADR
 * 0020's and do not change). The views of migrations `1765500000001` and `1765650000000` looked up each
 * conversation start's response, and each question's answer, in a lateral subquery over every message of the
 * lake (and the unanswered list re-ran the whole first-response view per question): 93 s for 30,000 messages,
 * growing with the square of the lake. Here every lookup is a hash join or a window over one sorted pass:
 *
 * - the messages between a start and the group's next start are one segment (a running count of starts), and the
 *   earliest message of another person in the segment is found per segment;
 * - the earliest reply of another person to a start or a question is a join on `reply_to_id`;
 * - the earliest mention of a question's author after it is a running minimum over that author's mentions and
 *   questions in time order;
 * - "a newcomer's first message" compares it with the author's first join in the group, read once.
 *
 * Same columns, same rows (the tests of both views are unchanged).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_first_responses AS
      WITH m AS (
        SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, w.reply_to_id,
               COALESCE(i.member_id, w.sender_id) AS person_key,
               lag(w.sent_at) OVER (PARTITION BY w.chat_jid ORDER BY w.sent_at, w.message_id) AS previous_at
          FROM whatsapp_messages w
          LEFT JOIN whatsapp_member_identities i ON i.participant_id = w.sender_id
         WHERE w.sender_id IS NOT NULL AND w.sent_at IS NOT NULL),
      segmented AS (
        SELECT m.*, s.is_start,
               count(*) FILTER (WHERE s.is_start)
                 OVER (PARTITION BY m.group_jid ORDER BY m.sent_at, m.message_id) AS segment
          FROM m
          CROSS JOIN LATERAL (SELECT m.reply_to_id IS NULL
                                     AND (m.previous_at IS NULL OR m.sent_at - m.previous_at >= interval '60 minutes')
                                     AS is_start) s),
      starts AS (SELECT * FROM segmented WHERE is_start),
      in_segment AS (
        SELECT DISTINCT ON (x.group_jid, x.segment) x.group_jid, x.segment, x.message_id, x.sender_id, x.sent_at
          FROM (SELECT y.*, first_value(y.person_key) OVER (PARTITION BY y.group_jid, y.segment
                                                             ORDER BY y.sent_at, y.message_id) AS start_person
                  FROM segmented y WHERE y.segment > 0) x
         WHERE x.person_key <> x.start_person
         ORDER BY x.group_jid, x.segment, x.sent_at, x.message_id),
      threads AS (
        SELECT t.*,
               max(t.person_key) FILTER (WHERE t.is_target) OVER thread AS start_person,
               max(t.sent_at) FILTER (WHERE t.is_target) OVER thread AS start_at,
               max(t.message_id) FILTER (WHERE t.is_target) OVER thread AS start_id
          FROM (SELECT group_jid, message_id AS target_id, message_id, sender_id, sent_at, person_key, true AS is_target
                  FROM starts
                UNION ALL
                SELECT group_jid, reply_to_id, message_id, sender_id, sent_at, person_key, false
                  FROM m WHERE reply_to_id IS NOT NULL) t
        WINDOW thread AS (PARTITION BY t.group_jid, t.target_id)),
      replies AS (
        SELECT DISTINCT ON (group_jid, target_id) group_jid, target_id AS start_id, message_id, sender_id, sent_at
          FROM threads
         WHERE NOT is_target AND start_id IS NOT NULL AND person_key <> start_person
           AND (sent_at, message_id) > (start_at, start_id)
         ORDER BY group_jid, target_id, sent_at, message_id)
      SELECT s.group_jid, s.message_id, s.sender_id, s.person_key, s.sent_at AS started_at,
             (s.sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day,
             r.message_id AS first_response_id, r.sender_id AS first_responder_id, r.sent_at AS first_response_at,
             extract(epoch FROM r.sent_at - s.sent_at)::bigint AS response_seconds
        FROM starts s
        LEFT JOIN in_segment g ON g.group_jid = s.group_jid AND g.segment = s.segment
        LEFT JOIN replies y ON y.group_jid = s.group_jid AND y.start_id = s.message_id
        CROSS JOIN LATERAL (
          SELECT c.message_id, c.sender_id, c.sent_at
            FROM (VALUES (g.message_id, g.sender_id, g.sent_at), (y.message_id, y.sender_id, y.sent_at))
                 AS c(message_id, sender_id, sent_at)
           ORDER BY c.sent_at NULLS LAST, c.message_id LIMIT 1) r;

    CREATE OR REPLACE VIEW engagement_unanswered_candidates AS
      WITH m AS (
        SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, w.reply_to_id,
               COALESCE(i.member_id, w.sender_id) AS person_key,
               row_number() OVER (PARTITION BY w.chat_jid, w.sender_id ORDER BY w.sent_at, w.message_id) AS nth
          FROM whatsapp_messages w
          LEFT JOIN whatsapp_member_identities i ON i.participant_id = w.sender_id
         WHERE w.sender_id IS NOT NULL AND w.sent_at IS NOT NULL),
      first_joins AS (
        SELECT group_jid, participant_id, min(at) AS joined_at FROM engagement_membership_changes
         WHERE change = 'join' GROUP BY 1, 2),
      candidates AS (
        SELECT q.* FROM (
          SELECT m.*, COALESCE(x.is_question OR x.mentions_group, false) AS is_question,
                 COALESCE(m.nth = 1 AND j.joined_at <= m.sent_at, false) AS is_newcomer_first
            FROM m
            LEFT JOIN whatsapp_message_contexts x ON x.chat_jid = m.group_jid AND x.message_id = m.message_id
            LEFT JOIN first_joins j ON j.group_jid = m.group_jid AND j.participant_id = m.sender_id) q
         WHERE q.is_question OR q.is_newcomer_first),
      mentions AS (
        SELECT e.group_jid, e.target_participant_id AS participant_id, e.sent_at, r.person_key
          FROM engagement_reply_edges e
          JOIN m r ON r.group_jid = e.group_jid AND r.message_id = e.message_id
         WHERE e.kind = 'mention'),
      next_mentions AS (
        SELECT group_jid, message_id, next_mention_at FROM (
          SELECT t.*, min(t.mention_at) OVER (PARTITION BY t.group_jid, t.participant_id, t.person_key
                                              ORDER BY t.at DESC, t.is_mention
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS next_mention_at
            FROM (SELECT c.group_jid, c.sender_id AS participant_id, c.person_key, c.sent_at AS at, false AS is_mention,
                         c.message_id, NULL::timestamptz AS mention_at
                    FROM candidates c
                  UNION ALL
                  SELECT n.group_jid, n.participant_id, c.person_key, n.sent_at, true, NULL, n.sent_at
                    FROM mentions n
                    JOIN (SELECT DISTINCT group_jid, sender_id, person_key FROM candidates) c
                      ON c.group_jid = n.group_jid AND c.sender_id = n.participant_id AND n.person_key <> c.person_key) t
          ) ranked
         WHERE NOT is_mention),
      answers AS (
        SELECT c.group_jid, c.message_id, min(r.sent_at) AS at FROM candidates c
          JOIN m r ON r.group_jid = c.group_jid AND r.reply_to_id = c.message_id AND r.person_key <> c.person_key
         GROUP BY 1, 2
        UNION ALL
        SELECT group_jid, message_id, next_mention_at FROM next_mentions WHERE next_mention_at IS NOT NULL
        UNION ALL
        SELECT f.group_jid, f.message_id, f.first_response_at FROM engagement_first_responses f
          JOIN candidates c ON c.group_jid = f.group_jid AND c.message_id = f.message_id
         WHERE f.first_response_at IS NOT NULL),
      answered AS (SELECT group_jid, message_id, min(at) AS answered_at FROM answers GROUP BY 1, 2)
      SELECT c.group_jid, c.message_id, c.sender_id, c.person_key, c.sent_at,
             (c.sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day,
             c.is_question, c.is_newcomer_first, a.answered_at,
             (CASE WHEN a.answered_at IS NOT NULL
                   THEN GREATEST(extract(epoch FROM a.answered_at - c.sent_at), 0) END)::bigint AS response_seconds
        FROM candidates c
        LEFT JOIN answered a ON a.group_jid = c.group_jid AND a.message_id = c.message_id;
  `);
}

/** The definitions of migrations `1765500000001` and `1765650000000` (same rows, one lookup per start). */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_first_responses AS
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

    CREATE OR REPLACE VIEW engagement_unanswered_candidates AS
      WITH m AS (
        SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, w.reply_to_id,
               COALESCE(i.member_id, w.sender_id) AS person_key,
               row_number() OVER (PARTITION BY w.chat_jid, w.sender_id ORDER BY w.sent_at, w.message_id) AS nth
          FROM whatsapp_messages w
          LEFT JOIN whatsapp_member_identities i ON i.participant_id = w.sender_id
         WHERE w.sender_id IS NOT NULL AND w.sent_at IS NOT NULL),
      candidates AS (
        SELECT m.*, COALESCE(x.is_question OR x.mentions_group, false) AS is_question,
               (m.nth = 1 AND EXISTS (
                  SELECT 1 FROM engagement_membership_changes j
                   WHERE j.group_jid = m.group_jid AND j.participant_id = m.sender_id AND j.change = 'join'
                     AND j.at <= m.sent_at)) AS is_newcomer_first
          FROM m
          LEFT JOIN whatsapp_message_contexts x ON x.chat_jid = m.group_jid AND x.message_id = m.message_id)
      SELECT c.group_jid, c.message_id, c.sender_id, c.person_key, c.sent_at,
             (c.sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day,
             c.is_question, c.is_newcomer_first, a.answered_at,
             (CASE WHEN a.answered_at IS NOT NULL
                   THEN GREATEST(extract(epoch FROM a.answered_at - c.sent_at), 0) END)::bigint AS response_seconds
        FROM candidates c
        CROSS JOIN LATERAL (
          SELECT min(answer.at) AS answered_at FROM (
            SELECT r.sent_at AS at FROM m r
             WHERE r.group_jid = c.group_jid AND r.reply_to_id = c.message_id AND r.person_key <> c.person_key
            UNION ALL
            SELECT e.sent_at FROM engagement_reply_edges e
              JOIN m r ON r.group_jid = e.group_jid AND r.message_id = e.message_id
             WHERE e.group_jid = c.group_jid AND e.kind = 'mention' AND e.target_participant_id = c.sender_id
               AND r.person_key <> c.person_key AND e.sent_at > c.sent_at
            UNION ALL
            SELECT f.first_response_at FROM engagement_first_responses f
             WHERE f.group_jid = c.group_jid AND f.message_id = c.message_id) answer) a
       WHERE c.is_question OR c.is_newcomer_first;
  `);
}
