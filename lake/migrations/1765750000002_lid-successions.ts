import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * One person across LIDs (issue #28 item 1, ADR 0025, docs/engagement.md "One person across LIDs"). WhatsApp can
 * give the same phone number a new LID; the lake then holds two aliases of the number, and the number's owner
 * (`whatsapp_phone_owners`: the alias seen last) is the new LID. The old LID stays in every earlier row.
 *
 * - `whatsapp_lid_successions`: a LID that owns no phone number any more, and the LID that owns the number it was
 *   last seen with: its successor. Owning no number is what retires a LID, so a successor never has a successor of
 *   its own and no chain or cycle can form.
 * - `whatsapp_person_identities`: per participant in a succession or linked to a member id, the person it counts
 *   for: `person_lid` (the successor, else itself), `member_id` (its own link, else the successor's, else one of
 *   the succession's other links) and `person_key` = COALESCE(member_id, person_lid).
 * - `engagement_member_activity_days`, `engagement_first_responses`, `engagement_unanswered_candidates` take their
 *   `member_id` / `person_key` from it: two LIDs of one number are one active member, one top member, and no
 *   first response to oneself. Rows stay keyed by the participant the events named.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE VIEW whatsapp_lid_successions AS
      WITH latest AS (
        SELECT DISTINCT ON (lid) lid, phone_jid, last_seen_at FROM whatsapp_lid_aliases
         ORDER BY lid, last_seen_at DESC, phone_jid COLLATE "C" DESC)
      SELECT l.lid, o.lid AS successor_lid, l.phone_jid, l.last_seen_at AS lid_last_seen_at,
             a.first_seen_at AS successor_first_seen_at
        FROM latest l
        JOIN whatsapp_phone_owners o ON o.phone_jid = l.phone_jid
        JOIN whatsapp_lid_aliases a ON a.lid = o.lid AND a.phone_jid = o.phone_jid
       WHERE o.lid <> l.lid AND NOT EXISTS (SELECT 1 FROM whatsapp_phone_owners w WHERE w.lid = l.lid);

    CREATE VIEW whatsapp_person_identities AS
      WITH persons AS (
        SELECT lid AS participant_id, successor_lid AS person_lid FROM whatsapp_lid_successions
        UNION
        SELECT successor_lid, successor_lid FROM whatsapp_lid_successions
        UNION
        SELECT i.participant_id, i.participant_id FROM whatsapp_member_identities i
         WHERE NOT EXISTS (SELECT 1 FROM whatsapp_lid_successions s WHERE s.lid = i.participant_id)),
      person_links AS (
        SELECT DISTINCT ON (p.person_lid) p.person_lid, i.member_id
          FROM persons p JOIN whatsapp_member_identities i ON i.participant_id = p.participant_id
         ORDER BY p.person_lid, (p.participant_id = p.person_lid) DESC, p.participant_id COLLATE "C" DESC)
      SELECT p.participant_id, p.person_lid, COALESCE(own.member_id, pl.member_id) AS member_id,
             COALESCE(own.member_id, pl.member_id, p.person_lid) AS person_key
        FROM persons p
        LEFT JOIN whatsapp_member_identities own ON own.participant_id = p.participant_id
        LEFT JOIN person_links pl ON pl.person_lid = p.person_lid;

    CREATE OR REPLACE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.person_key, o.lid, d.participant_key) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given, sum(d.poll_votes)::int AS poll_votes
        FROM engagement_member_day_totals d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5;

    CREATE OR REPLACE VIEW engagement_first_responses AS
      WITH m AS (
        SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, w.reply_to_id,
               COALESCE(i.person_key, w.sender_id) AS person_key,
               lag(w.sent_at) OVER (PARTITION BY w.chat_jid ORDER BY w.sent_at, w.message_id) AS previous_at
          FROM whatsapp_messages w
          LEFT JOIN whatsapp_person_identities i ON i.participant_id = w.sender_id
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
               COALESCE(i.person_key, w.sender_id) AS person_key,
               row_number() OVER (PARTITION BY w.chat_jid, w.sender_id ORDER BY w.sent_at, w.message_id) AS nth
          FROM whatsapp_messages w
          LEFT JOIN whatsapp_person_identities i ON i.participant_id = w.sender_id
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

/** The definitions of migrations `1765450000006` (activity days) and `1765750000000` (the two response views). */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.member_id, COALESCE(o.lid, d.participant_key)) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given, sum(d.poll_votes)::int AS poll_votes
        FROM engagement_member_day_totals d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5;

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
    DROP VIEW whatsapp_person_identities;
    DROP VIEW whatsapp_lid_successions;
  `);
}
