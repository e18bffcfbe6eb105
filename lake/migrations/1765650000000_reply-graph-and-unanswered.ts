import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * The reply graph and the unanswered list (issue #28 item 2, ADR 0020, docs/engagement.md "Replies" and
 * "Unanswered"). Additive: no existing view is replaced.
 *
 * The read model keeps a message's reply target and mention count, not whom it mentions nor its text; both are
 * read here from the raw row of the record that won (`record_event_id`), so replay, delivery order and
 * `wa-lake rebuild` cannot change them, and retention or an erasure that redacts the body removes them too.
 *
 * - `wa_message_content(message)`: the content under ephemeral / view-once / edited / device-sent wrappers, as
 *   `unwrapContent` of lake/projections/message-content.ts does it.
 * - `whatsapp_message_contexts`: per message, the quoted participant, the mentioned JIDs, whether it mentions
 *   its own group, and whether it is a question (its text or caption ends in `?`).
 * - `engagement_reply_edges`: one row per reply (to the quoted message's author) and per distinct mention.
 * - `engagement_reply_graph`: per group, from-participant and to-participant, replies and mentions.
 * - `engagement_unanswered_candidates`: questions and newcomers' first messages with the earliest answer by another
 *   person (a reply to it, a mention of its author after it, or its first response when it starts a
 *   conversation); `engagement_unanswered`: those with no answer within 24 hours.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE FUNCTION wa_message_content(message jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
      DECLARE
        content jsonb := message;
        wrapped jsonb;
        field text;
      BEGIN
        IF jsonb_typeof(content) IS DISTINCT FROM 'object' THEN RETURN NULL; END IF;
        FOR depth IN 1..5 LOOP
          wrapped := NULL;
          FOREACH field IN ARRAY ARRAY['viewOnceMessage', 'viewOnceMessageV2', 'viewOnceMessageV2Extension',
                                       'ephemeralMessage', 'documentWithCaptionMessage', 'editedMessage',
                                       'deviceSentMessage'] LOOP
            IF jsonb_typeof(content -> field) = 'object' THEN
              wrapped := content -> field -> 'message';
              EXIT;
            END IF;
          END LOOP;
          EXIT WHEN jsonb_typeof(wrapped) IS DISTINCT FROM 'object';
          content := wrapped;
        END LOOP;
        RETURN content;
      END $$;

    CREATE FUNCTION wa_bare_jid(jid text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT NULLIF(regexp_replace(btrim(jid), ':[0-9]+@', '@'), '') $$;

    CREATE VIEW whatsapp_message_contexts AS
      SELECT r.chat_jid, r.message_id, wa_bare_jid(x.info ->> 'participant') AS quoted_participant,
             ARRAY(SELECT DISTINCT wa_bare_jid(j) FROM jsonb_array_elements_text(
                     CASE WHEN jsonb_typeof(x.info -> 'mentionedJid') = 'array' THEN x.info -> 'mentionedJid'
                          ELSE '[]' END) AS j
                    WHERE wa_bare_jid(j) IS NOT NULL ORDER BY 1) AS mentioned_jids,
             COALESCE(x.info -> 'mentionedJid' ? r.chat_jid
                      OR jsonb_path_exists(x.info, '$.groupMentions[*] ? (@.groupJid == $g)',
                                           jsonb_build_object('g', r.chat_jid)), false) AS mentions_group,
             COALESCE(btrim(COALESCE(c.content ->> 'conversation', c.content -> 'extendedTextMessage' ->> 'text',
                                     c.content -> 'imageMessage' ->> 'caption',
                                     c.content -> 'videoMessage' ->> 'caption',
                                     c.content -> 'documentMessage' ->> 'caption'))
                      ~ '[?？]$', false) AS is_question
        FROM whatsapp_message_records r
        JOIN whatsapp_event_logs e ON e.event_id = r.record_event_id
        CROSS JOIN LATERAL (SELECT wa_message_content(e.payload -> 'message') AS content) c
        LEFT JOIN LATERAL (
          SELECT f.value -> 'contextInfo' AS info
            FROM jsonb_each(CASE WHEN jsonb_typeof(c.content) = 'object' THEN c.content ELSE '{}' END) AS f
           WHERE jsonb_typeof(f.value -> 'contextInfo') = 'object'
           ORDER BY f.key LIMIT 1) x ON true
       WHERE r.is_message;

    CREATE VIEW engagement_reply_edges AS
      SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, 'reply'::text AS kind,
             w.reply_to_id AS target_message_id,
             COALESCE(t.sender_id, o.lid, x.quoted_participant) AS target_participant_id
        FROM whatsapp_messages w
        LEFT JOIN whatsapp_messages t ON t.chat_jid = w.chat_jid AND t.message_id = w.reply_to_id
        LEFT JOIN whatsapp_message_contexts x ON x.chat_jid = w.chat_jid AND x.message_id = w.message_id
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = x.quoted_participant
       WHERE w.reply_to_id IS NOT NULL AND w.sender_id IS NOT NULL
      UNION ALL
      SELECT DISTINCT w.chat_jid, w.message_id, w.sender_id, w.sent_at, 'mention', NULL::varchar,
             COALESCE(o.lid, j.jid)
        FROM whatsapp_messages w
        JOIN whatsapp_message_contexts x ON x.chat_jid = w.chat_jid AND x.message_id = w.message_id
        CROSS JOIN LATERAL unnest(x.mentioned_jids) AS j(jid)
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = j.jid
       WHERE w.sender_id IS NOT NULL AND j.jid <> w.chat_jid;

    CREATE VIEW engagement_reply_graph AS
      SELECT group_jid, sender_id AS from_participant_id, target_participant_id AS to_participant_id,
             count(*) FILTER (WHERE kind = 'reply')::int AS replies,
             count(*) FILTER (WHERE kind = 'mention')::int AS mentions,
             min(sent_at) AS first_at, max(sent_at) AS last_at
        FROM engagement_reply_edges
       WHERE target_participant_id IS NOT NULL
       GROUP BY 1, 2, 3;

    CREATE VIEW engagement_unanswered_candidates AS
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

    CREATE VIEW engagement_unanswered AS
      SELECT * FROM engagement_unanswered_candidates
       WHERE response_seconds IS NULL OR response_seconds > 86400;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP VIEW engagement_unanswered;
    DROP VIEW engagement_unanswered_candidates;
    DROP VIEW engagement_reply_graph;
    DROP VIEW engagement_reply_edges;
    DROP VIEW whatsapp_message_contexts;
    DROP FUNCTION wa_bare_jid(text);
    DROP FUNCTION wa_message_content(jsonb);
  `);
}
