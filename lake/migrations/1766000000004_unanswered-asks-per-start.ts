import type { MigrationBuilder } from 'node-pg-migrate';

// The view as migrations `1765650000000`, `1765750000003` and `1765900000001` left it (read from the catalog), with the
// first response of each candidate that starts a conversation computed for that start alone.
const UNANSWERED_CANDIDATES = `
SELECT v.group_jid,
    v.message_id,
    v.sender_id,
    v.person_key,
    v.sent_at,
    v.day,
    v.is_question,
    v.is_newcomer_first,
    v.answered_at,
    v.response_seconds,
    n.display_name
   FROM ( WITH m AS NOT MATERIALIZED (
                 SELECT w.chat_jid AS group_jid,
                    w.message_id,
                    w.sender_id,
                    w.sent_at,
                    w.reply_to_id,
                    COALESCE(i.person_key, w.sender_id) AS person_key,
                    row_number() OVER (PARTITION BY w.chat_jid, w.sender_id ORDER BY w.sent_at, w.message_id) AS nth
                   FROM whatsapp_messages w
                     LEFT JOIN whatsapp_person_identities i ON i.participant_id::text = w.sender_id::text
                  WHERE w.sender_id IS NOT NULL AND w.sent_at IS NOT NULL
                ), first_joins AS NOT MATERIALIZED (
                 SELECT engagement_membership_changes.group_jid,
                    engagement_membership_changes.participant_id,
                    min(engagement_membership_changes.at) AS joined_at
                   FROM engagement_membership_changes
                  WHERE engagement_membership_changes.change = 'join'::text
                  GROUP BY engagement_membership_changes.group_jid, engagement_membership_changes.participant_id
                ), candidates AS NOT MATERIALIZED (
                 SELECT q.group_jid,
                    q.message_id,
                    q.sender_id,
                    q.sent_at,
                    q.reply_to_id,
                    q.person_key,
                    q.nth,
                    q.is_question,
                    q.is_newcomer_first
                   FROM ( SELECT m.group_jid,
                            m.message_id,
                            m.sender_id,
                            m.sent_at,
                            m.reply_to_id,
                            m.person_key,
                            m.nth,
                            COALESCE(x.is_question OR x.mentions_group, false) AS is_question,
                            COALESCE(m.nth = 1 AND j.joined_at <= m.sent_at, false) AS is_newcomer_first
                           FROM m
                             LEFT JOIN whatsapp_message_contexts x ON x.chat_jid::text = m.group_jid::text AND x.message_id::text = m.message_id::text
                             LEFT JOIN first_joins j ON j.group_jid::text = m.group_jid::text AND j.participant_id::text = m.sender_id::text) q
                  WHERE q.is_question OR q.is_newcomer_first
                ), mentions AS NOT MATERIALIZED (
                 SELECT e.group_jid,
                    e.target_participant_id AS participant_id,
                    e.sent_at,
                    r.person_key
                   FROM engagement_reply_edges e
                     JOIN m r ON r.group_jid::text = e.group_jid::text AND r.message_id::text = e.message_id::text
                  WHERE e.kind = 'mention'::text
                ), next_mentions AS NOT MATERIALIZED (
                 SELECT ranked.group_jid,
                    ranked.message_id,
                    ranked.next_mention_at
                   FROM ( SELECT t.group_jid,
                            t.participant_id,
                            t.person_key,
                            t.at,
                            t.is_mention,
                            t.message_id,
                            t.mention_at,
                            min(t.mention_at) OVER (PARTITION BY t.group_jid, t.participant_id, t.person_key ORDER BY t.at DESC, t.is_mention ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS next_mention_at
                           FROM ( SELECT c_1.group_jid,
                                    c_1.sender_id AS participant_id,
                                    c_1.person_key,
                                    c_1.sent_at AS at,
                                    false AS is_mention,
                                    c_1.message_id,
                                    NULL::timestamp with time zone AS mention_at
                                   FROM candidates c_1
                                UNION ALL
                                 SELECT n_1.group_jid,
                                    n_1.participant_id,
                                    c_1.person_key,
                                    n_1.sent_at,
                                    true,
                                    NULL::character varying AS "varchar",
                                    n_1.sent_at
                                   FROM mentions n_1
                                     JOIN ( SELECT DISTINCT candidates.group_jid,
    candidates.sender_id,
    candidates.person_key
   FROM candidates) c_1 ON c_1.group_jid::text = n_1.group_jid::text AND c_1.sender_id::text = n_1.participant_id::text AND n_1.person_key::text <> c_1.person_key::text) t) ranked
                  WHERE NOT ranked.is_mention
                ), answers AS NOT MATERIALIZED (
                 SELECT c_1.group_jid,
                    c_1.message_id,
                    min(r.sent_at) AS at
                   FROM candidates c_1
                     JOIN m r ON r.group_jid::text = c_1.group_jid::text AND r.reply_to_id::text = c_1.message_id::text AND r.person_key::text <> c_1.person_key::text
                  GROUP BY c_1.group_jid, c_1.message_id
                UNION ALL
                 SELECT next_mentions.group_jid,
                    next_mentions.message_id,
                    next_mentions.next_mention_at
                   FROM next_mentions
                  WHERE next_mentions.next_mention_at IS NOT NULL
                UNION ALL
                 SELECT c_1.group_jid,
                    c_1.message_id,
                    f.first_response_at
                   FROM candidates c_1
                     JOIN engagement_conversation_segments s ON s.group_jid::text = c_1.group_jid::text AND s.message_id::text = c_1.message_id::text
                     CROSS JOIN LATERAL engagement_first_response(s.group_jid, s.message_id, s.sent_at, c_1.person_key,
                       s.next_at, s.next_id) f(message_id, sender_id, first_response_at)
                ), answered AS NOT MATERIALIZED (
                 SELECT answers.group_jid,
                    answers.message_id,
                    min(answers.at) AS answered_at
                   FROM answers
                  GROUP BY answers.group_jid, answers.message_id
                )
         SELECT c.group_jid,
            c.message_id,
            c.sender_id,
            c.person_key,
            c.sent_at,
            (c.sent_at AT TIME ZONE (( SELECT wa_engagement_time_zone() AS wa_engagement_time_zone)))::date AS day,
            c.is_question,
            c.is_newcomer_first,
            a.answered_at,
                CASE
                    WHEN a.answered_at IS NOT NULL THEN GREATEST(EXTRACT(epoch FROM a.answered_at - c.sent_at), 0::numeric)
                    ELSE NULL::numeric
                END::bigint AS response_seconds
           FROM candidates c
             LEFT JOIN answered a ON a.group_jid::text = c.group_jid::text AND a.message_id::text = c.message_id::text) v
     LEFT JOIN ( SELECT DISTINCT ON (whatsapp_participant_display_names.participant_id) whatsapp_participant_display_names.participant_id,
            whatsapp_participant_display_names.display_name
           FROM whatsapp_participant_display_names
          ORDER BY whatsapp_participant_display_names.participant_id) n ON n.participant_id::text = v.sender_id::text`;

/**
 * `engagement_unanswered_candidates` takes a candidate's first response from `engagement_first_response()` (migration
 * `1766000000003`) for the candidate's own segment, joined by group and id, instead of joining the first responses of
 * every start of the lake. Same columns, same rows. Irreversible (`down = false`) as `1766000000003`.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`CREATE OR REPLACE VIEW engagement_unanswered_candidates AS ${UNANSWERED_CANDIDATES}`);
}

export const down = false;
