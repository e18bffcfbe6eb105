import type { MigrationBuilder } from 'node-pg-migrate';

const NAMES = `(SELECT DISTINCT ON (participant_id) participant_id, display_name FROM whatsapp_participant_display_names
                 ORDER BY participant_id)`;

// The participant keys (as the events name them) that count for one LID-first participant: itself and each phone JID
// it owns (`whatsapp_phone_owners`' rule, asked per phone through the aliases' indexes).
const PARTICIPANT_KEYS = `
  CREATE OR REPLACE FUNCTION engagement_participant_keys(p_participant varchar)
    RETURNS TABLE (participant_key varchar) LANGUAGE sql STABLE ROWS 2 AS $$
    SELECT p_participant
    UNION ALL
    SELECT a.phone_jid FROM whatsapp_lid_aliases a
     WHERE a.lid = p_participant
       AND (SELECT o.lid FROM whatsapp_phone_owners o WHERE o.phone_jid = a.phone_jid) = p_participant
  $$`;

// A participant's first message in a group, in the order `whatsapp_messages` numbers a sender's messages (sent_at,
// then id): the earliest row of `engagement_first_message_days` over the participant's keys, read as that view reads
// (the first row of the table on a day no visible mark names, one index probe per key, or a row of the marked days
// recounted).
const FIRST_MESSAGE_IN_GROUP = `
  CREATE OR REPLACE FUNCTION engagement_first_message_in_group(p_group varchar, p_participant varchar)
    RETURNS TABLE (message_id varchar, sent_at timestamptz) LANGUAGE sql STABLE ROWS 1 AS $$
    SELECT f.message_id, f.sent_at
      FROM engagement_participant_keys(p_participant) k
     CROSS JOIN LATERAL (
           (SELECT c.sent_at, c.message_id FROM engagement_rollup_first_messages c
             WHERE c.group_jid = p_group AND c.participant_key = k.participant_key
               AND (SELECT engagement_rollup_is_current())
               AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s
                                WHERE s.group_jid = c.group_jid AND s.day = c.day)
             ORDER BY c.day LIMIT 1)
           UNION ALL
           SELECT r.sent_at, r.message_id FROM engagement_rollup_recount_first_messages() r
            WHERE r.group_jid = p_group AND r.participant_key = k.participant_key) f
     ORDER BY f.sent_at, f.message_id LIMIT 1
  $$`;

// The answer rule of `engagement_unanswered_candidates` (docs/engagement.md "Replies and unanswered") for one message:
// the earliest of a reply of another person (at any time), a mention of its sender by another person after it (the
// mention links, by the sender's keys), and, when it starts a conversation, its first response
// (`engagement_first_response` up to the group's next start). Each is an index probe; people are resolved when read.
const ANSWER = `
  CREATE OR REPLACE FUNCTION engagement_answer(p_group varchar, p_id varchar, p_at timestamptz, p_sender varchar,
                                               p_person varchar)
    RETURNS TABLE (answered_at timestamptz) LANGUAGE sql STABLE ROWS 1 AS $$
    SELECT min(a.at) FROM (
      (SELECT r.sent_at AS at
         FROM (SELECT r.* FROM whatsapp_message_records_attributed r
                WHERE r.chat_jid = p_group AND r.reply_to_id = p_id AND r.is_message AND r.sender_id IS NOT NULL
                  AND r.sent_at IS NOT NULL OFFSET 0) r
         LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = r.sender_id
         LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, r.sender_id)
        WHERE COALESCE(i.person_key, o.lid, r.sender_id) <> p_person
        ORDER BY r.sent_at LIMIT 1)
      UNION ALL
      (SELECT l.sent_at
         FROM engagement_participant_keys(p_sender) k
        CROSS JOIN LATERAL (
              SELECT l.sent_at, l.sender_key FROM engagement_message_links l
               WHERE l.target_key = k.participant_key AND l.group_jid = p_group AND l.kind = 'mention'
                 AND l.sent_at > p_at
              OFFSET 0) l
         LEFT JOIN whatsapp_phone_owners so ON so.phone_jid = l.sender_key
         LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(so.lid, l.sender_key)
        WHERE COALESCE(i.person_key, so.lid, l.sender_key) <> p_person
        ORDER BY l.sent_at LIMIT 1)
      UNION ALL
      SELECT f.sent_at
        FROM (SELECT s.sent_at FROM engagement_conversation_starts s
               WHERE s.group_jid = p_group AND s.message_id = p_id
                 AND s.day = (p_at AT TIME ZONE wa_engagement_time_zone())::date) s
        LEFT JOIN LATERAL (
              SELECT n.sent_at, n.message_id FROM engagement_conversation_starts n
               WHERE n.group_jid = p_group AND n.day >= (p_at AT TIME ZONE wa_engagement_time_zone())::date - 1
                 AND (n.sent_at, n.message_id) > (p_at, p_id)
               ORDER BY n.sent_at, n.message_id LIMIT 1) n ON true
       CROSS JOIN LATERAL engagement_first_response(p_group, p_id, p_at, p_person, n.sent_at, n.message_id) f) a
  $$`;

// The lake's last week for the cohort views: the Monday of the later of the lake's last day with activity and the
// latest cohort week (a member's first join). Only a join after the Monday following the last day's week can move
// it, so only the pairs with a presence fact from a day before that Monday (any zone is within a day of UTC) are
// counted, each by its own membership history.
const LAST_WEEK = `
  CREATE OR REPLACE FUNCTION engagement_last_cohort_week() RETURNS date LANGUAGE sql STABLE AS $$
    WITH active AS (SELECT date_trunc('week', max(day))::date AS week FROM engagement_group_day_parts)
    SELECT date_trunc('week', GREATEST(a.week, (
             SELECT max(j.cohort_week)
               FROM (SELECT DISTINCT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id
                       FROM whatsapp_membership_facts f
                       LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id
                      WHERE f.is_present
                        AND f.at >= COALESCE((a.week + 6)::timestamp AT TIME ZONE 'UTC', '-infinity')) p
              CROSS JOIN LATERAL (
                    SELECT date_trunc('week', min(m.at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
                      FROM engagement_membership_changes m
                     WHERE m.group_jid = p.group_jid AND m.participant_id = p.participant_id
                       AND m.change = 'join') j)))::date
      FROM active a
  $$`;

// Candidates per group and local day: the days come from `engagement_first_message_days` (every day a group has a
// message with a sender), so a filter on group and day reaches that table's index; each day's messages are read
// through (chat_jid, sent_at) from a day before to a day after it in UTC (any zone is within a day of UTC) and kept to
// the local day. A message is its sender's first in the group only if it is the first of the day under the key its
// event names, which is asked first; then the first message and the first join are asked for that sender alone.
const UNANSWERED_CANDIDATES = `
  SELECT v.group_jid, v.message_id, v.sender_id, v.person_key, v.sent_at, v.day, v.is_question, v.is_newcomer_first,
         a.answered_at,
         CASE WHEN a.answered_at IS NOT NULL THEN GREATEST(EXTRACT(epoch FROM a.answered_at - v.sent_at), 0::numeric)
              ELSE NULL::numeric END::bigint AS response_seconds,
         n.display_name
    FROM (SELECT d.group_jid, m.message_id, m.sender_id, m.person_key, m.sent_at, d.day,
                 COALESCE(x.is_question OR x.mentions_group, false) AS is_question,
                 COALESCE(CASE WHEN m.day_rank = 1
                                AND (SELECT f.message_id FROM engagement_first_message_in_group(d.group_jid, m.sender_id) f)
                                    = m.message_id
                               THEN (SELECT min(j.at) FROM engagement_membership_changes j
                                      WHERE j.group_jid = d.group_jid AND j.participant_id = m.sender_id
                                        AND j.change = 'join') <= m.sent_at END, false) AS is_newcomer_first
            FROM (SELECT DISTINCT group_jid::varchar(255) AS group_jid, day FROM engagement_first_message_days) d
           CROSS JOIN LATERAL (
                 SELECT w.message_id, w.sender_id, w.sent_at,
                        row_number() OVER (PARTITION BY w.sender_id ORDER BY w.sent_at, w.message_id) AS day_rank
                   FROM whatsapp_message_records_attributed w
                  WHERE w.chat_jid = d.group_jid AND w.is_message AND w.sender_id IS NOT NULL
                    AND w.sent_at >= (d.day - 1)::timestamp AT TIME ZONE 'UTC'
                    AND w.sent_at < (d.day + 2)::timestamp AT TIME ZONE 'UTC'
                    AND (w.sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date = d.day) w
            LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = w.sender_id
            LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, w.sender_id)
           CROSS JOIN LATERAL (
                 SELECT w.message_id::varchar(255) AS message_id, COALESCE(o.lid, w.sender_id)::varchar(255) AS sender_id,
                        COALESCE(i.person_key, o.lid, w.sender_id)::varchar(255) AS person_key, w.sent_at, w.day_rank) m
            LEFT JOIN LATERAL (SELECT x.is_question, x.mentions_group FROM whatsapp_message_contexts x
                                WHERE x.chat_jid = d.group_jid AND x.message_id = m.message_id OFFSET 0) x ON true) v
    LEFT JOIN LATERAL engagement_answer(v.group_jid, v.message_id, v.sent_at, v.sender_id, v.person_key) a ON true
    LEFT JOIN ${NAMES} n ON n.participant_id = v.sender_id
   WHERE v.is_question OR v.is_newcomer_first`;

// Reactions, edits and deletions received per day: a current reaction is one no later row of the same reactor (phone
// owner applied) on the same message follows, so the day filter reaches the rows before the latest one is chosen, and
// each activity's message is looked up by its key.
const MEMBER_RECEIVED_DAYS = `
  SELECT v.group_jid, v.participant_id, v.day, v.reactions_received, v.edits, v.deletions, n.display_name
    FROM (SELECT a.chat_jid AS group_jid, COALESCE(o.lid, t.sender_id) AS participant_id,
                 (a.at AT TIME ZONE wa_engagement_time_zone())::date AS day,
                 count(*) FILTER (WHERE a.activity = 'reaction')::integer AS reactions_received,
                 count(*) FILTER (WHERE a.activity = 'edit')::integer AS edits,
                 count(*) FILTER (WHERE a.activity = 'deletion')::integer AS deletions
            FROM (SELECT x.chat_jid, x.target_id, x.reacted_at AS at, 'reaction'::text AS activity
                    FROM whatsapp_message_reactions x
                    LEFT JOIN whatsapp_phone_owners xo ON xo.phone_jid = x.reactor_id
                   WHERE x.text <> ''
                     AND NOT EXISTS (
                           SELECT 1 FROM whatsapp_message_reactions y
                             LEFT JOIN whatsapp_phone_owners yo ON yo.phone_jid = y.reactor_id
                            WHERE y.chat_jid = x.chat_jid AND y.target_id = x.target_id
                              AND COALESCE(yo.lid, y.reactor_id) = COALESCE(xo.lid, x.reactor_id)
                              AND (y.reacted_at, y.event_id) > (x.reacted_at, x.event_id))
                  UNION ALL
                  SELECT chat_jid, target_id, edited_at, 'edit'::text FROM whatsapp_message_edits
                  UNION ALL
                  SELECT chat_jid, target_id, deleted_at, 'deletion'::text FROM whatsapp_message_revokes) a
           CROSS JOIN LATERAL (
                 SELECT t.sender_id FROM whatsapp_message_records_attributed t
                  WHERE t.chat_jid = a.chat_jid AND t.message_id = a.target_id AND t.is_message AND t.sender_id IS NOT NULL
                 OFFSET 0) t
            LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = t.sender_id
           GROUP BY a.chat_jid, (COALESCE(o.lid, t.sender_id)), ((a.at AT TIME ZONE wa_engagement_time_zone())::date)) v
    LEFT JOIN ${NAMES} n ON n.participant_id = v.participant_id`;

// Migration `1766000000002`'s cohort retention with the last week of `engagement_last_cohort_week()`, each cohort
// member's active weeks read by the member's keys from the cohort week on (the member-day rollup's key index).
const COHORT_RETENTION = `
  WITH cohorts AS NOT MATERIALIZED (
    SELECT group_jid, participant_id,
           date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
      FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
  sizes AS NOT MATERIALIZED (SELECT group_jid, cohort_week, count(*)::int AS cohort_size FROM cohorts GROUP BY 1, 2),
  active AS NOT MATERIALIZED (
    SELECT c.group_jid, c.cohort_week, w.week, count(*)::int AS members
      FROM cohorts c
     CROSS JOIN LATERAL (
           SELECT DISTINCT date_trunc('week', d.day)::date AS week
             FROM engagement_participant_keys(c.participant_id) k
            CROSS JOIN LATERAL (
                  SELECT d.day FROM engagement_member_day_totals d
                   WHERE d.participant_key = k.participant_key AND d.group_jid = c.group_jid
                     AND d.day >= c.cohort_week OFFSET 0) d) w
     GROUP BY 1, 2, 3),
  last_week AS NOT MATERIALIZED (SELECT engagement_last_cohort_week() AS week)
  SELECT s.group_jid, s.cohort_week, (w.week::date - s.cohort_week) / 7 AS week_offset, s.cohort_size,
         COALESCE(a.members, 0) AS active_members, round(COALESCE(a.members, 0)::numeric / s.cohort_size, 4) AS retention
    FROM sizes s
   CROSS JOIN last_week l
   CROSS JOIN LATERAL generate_series(s.cohort_week, l.week, interval '7 days') AS w (week)
    LEFT JOIN active a ON a.group_jid = s.group_jid AND a.cohort_week = s.cohort_week AND a.week = w.week::date`;

// `engagement_reply_graph` as `engagement_reply_edges` resolves its edges (migration `1766000000001`), reading the
// group's links once for both kinds: a reply counts per link, a mention once per message (the edges' DISTINCT; in one
// pair a mention edge is one message), the span over both.
const REPLY_GRAPH = `
  SELECT v.group_jid, v.from_participant_id, v.to_participant_id, v.replies, v.mentions, v.first_at, v.last_at,
         f.display_name AS from_display_name, t.display_name AS to_display_name
    FROM (SELECT e.group_jid, e.sender_id AS from_participant_id, e.target_participant_id AS to_participant_id,
                 count(*) FILTER (WHERE e.kind = 'reply')::integer AS replies,
                 count(DISTINCT e.message_id) FILTER (WHERE e.kind = 'mention')::integer AS mentions,
                 min(e.sent_at) AS first_at, max(e.sent_at) AS last_at
            FROM (SELECT l.group_jid::varchar(255) AS group_jid, l.message_id::varchar(255) AS message_id,
                         COALESCE(so.lid, l.sender_key)::varchar(255) AS sender_id, l.sent_at, l.kind,
                         CASE WHEN l.kind = 'reply' THEN COALESCE(tw.lid, t.sender_id, qo.lid, l.target_key::varchar)
                              ELSE COALESCE(qo.lid, l.target_key::varchar) END AS target_participant_id
                    FROM engagement_message_links l
                    LEFT JOIN whatsapp_phone_owners so ON so.phone_jid = l.sender_key
                    LEFT JOIN LATERAL (
                          SELECT a.sender_id FROM whatsapp_message_records_attributed a
                           WHERE l.kind = 'reply' AND a.chat_jid = l.group_jid AND a.message_id = l.target_message_id
                             AND a.is_message
                          OFFSET 0) t ON true
                    LEFT JOIN whatsapp_phone_owners tw ON tw.phone_jid = t.sender_id
                    LEFT JOIN whatsapp_phone_owners qo ON qo.phone_jid = l.target_key
                   WHERE l.kind IN ('reply', 'mention')) e
           WHERE e.target_participant_id IS NOT NULL
           GROUP BY e.group_jid, e.sender_id, e.target_participant_id) v
    LEFT JOIN ${NAMES} f ON f.participant_id = v.from_participant_id
    LEFT JOIN ${NAMES} t ON t.participant_id = v.to_participant_id`;

// Per cohort member (first join per group, as before): the first message and its answer asked for that member
// alone, the active weeks 4 and 12 as index probes into the member-day rollup by the member's keys.
const ACTIVE_IN_WEEK = (offsetDays: number): string => `EXISTS (
                    SELECT 1 FROM engagement_participant_keys(c.participant_id) k
                     CROSS JOIN LATERAL (
                           SELECT d.day FROM engagement_member_day_totals d
                            WHERE d.participant_key = k.participant_key AND d.group_jid = c.group_jid
                              AND d.day BETWEEN c.cohort_week + ${String(offsetDays)} AND c.cohort_week + ${String(offsetDays + 6)}
                           OFFSET 0) d)`;
const NEWCOMER_FUNNEL = `
  WITH cohorts AS NOT MATERIALIZED (
    SELECT group_jid, participant_id, min(at) AS joined_at,
           date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
      FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
  last_week AS MATERIALIZED (SELECT engagement_last_cohort_week() AS week)
  SELECT c.group_jid, c.cohort_week, count(*)::int AS joined,
         count(*) FILTER (WHERE f.sent_at >= c.joined_at)::int AS first_message,
         count(*) FILTER (WHERE (CASE WHEN a.answered_at IS NOT NULL
                                      THEN GREATEST(EXTRACT(epoch FROM a.answered_at - f.sent_at), 0::numeric)
                                 END)::bigint <= 86400)::int AS answered_within_24h,
         CASE WHEN c.cohort_week + 28 <= l.week THEN count(*) FILTER (WHERE ${ACTIVE_IN_WEEK(28)}) END::int
           AS active_week_4,
         CASE WHEN c.cohort_week + 84 <= l.week THEN count(*) FILTER (WHERE ${ACTIVE_IN_WEEK(84)}) END::int
           AS active_week_12
    FROM cohorts c
   CROSS JOIN last_week l
    LEFT JOIN LATERAL engagement_first_message_in_group(c.group_jid, c.participant_id) f ON true
    LEFT JOIN whatsapp_person_identities i ON i.participant_id = c.participant_id
    LEFT JOIN LATERAL (SELECT a.answered_at
                         FROM engagement_answer(c.group_jid, f.message_id, f.sent_at, c.participant_id,
                                                COALESCE(i.person_key, c.participant_id)) a
                        WHERE f.sent_at >= c.joined_at) a ON true
   GROUP BY c.group_jid, c.cohort_week, l.week`;

/**
 * The documented views that still read a group's whole history for one group and one month read that group-month
 * (ADR 0033): same columns, same rows.
 *
 * - `engagement_unanswered_candidates` (and `engagement_unanswered` over it) reads its messages per group and local
 *   day and asks each candidate's answer by index probes (`engagement_answer`), a message's rank among its sender's
 *   messages from the first-message rollup (`engagement_first_message_in_group`), instead of numbering and answering
 *   every message of the group.
 * - `engagement_newcomer_funnel` asks each cohort member's first message, answer and weeks 4 and 12 alone, and the
 *   lake's last week from the group-day rollup and the latest joins (`engagement_last_cohort_week`), instead of every
 *   activity week and every candidate of the lake; `engagement_cohort_retention` takes the same last week.
 * - `engagement_member_received_days` (and `engagement_member_daily` over it) lets the day filter reach the reactions
 *   before the current one per reactor is chosen, and looks each activity's message up by its key.
 * - `engagement_reply_graph` reads the group's reply and mention links once for both kinds.
 *
 * Irreversible (`down = false`), as migration `1766000000002`.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(PARTICIPANT_KEYS);
  pgm.sql(FIRST_MESSAGE_IN_GROUP);
  pgm.sql(ANSWER);
  pgm.sql(LAST_WEEK);
  pgm.sql(`CREATE OR REPLACE VIEW engagement_unanswered_candidates AS ${UNANSWERED_CANDIDATES}`);
  pgm.sql(`CREATE OR REPLACE VIEW engagement_member_received_days AS ${MEMBER_RECEIVED_DAYS}`);
  pgm.sql(`CREATE OR REPLACE VIEW engagement_newcomer_funnel AS ${NEWCOMER_FUNNEL}`);
  pgm.sql(`CREATE OR REPLACE VIEW engagement_cohort_retention AS ${COHORT_RETENTION}`);
  pgm.sql(`CREATE OR REPLACE VIEW engagement_reply_graph AS ${REPLY_GRAPH}`);
}

export const down = false;
