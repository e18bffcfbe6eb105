import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Engagement read side (issue #11 items 1–3, architecture.md §13), as plain SQL views a BI tool can query;
 * docs/engagement.md documents every column. Identity: a phone JID owned by a LID (the alias with the
 * latest `last_seen_at`, ties by the greater LID, as `lake/events/identities-repository.ts`) counts as that LID
 * (ADR 0004). Days are local days in `wa_engagement_time_zone()`: the session setting
 * `wa_lake.engagement_time_zone`, default America/Sao_Paulo.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE VIEW whatsapp_phone_owners AS
      SELECT DISTINCT ON (phone_jid) phone_jid, lid
        FROM whatsapp_lid_aliases
       ORDER BY phone_jid, last_seen_at DESC, lid COLLATE "C" DESC;

    -- A link made under a phone JID counts for the LID that owns it; the LID's own link wins.
    CREATE VIEW whatsapp_member_identities AS
      SELECT DISTINCT ON (COALESCE(o.lid, l.participant_id))
             COALESCE(o.lid, l.participant_id) AS participant_id, l.member_id
        FROM whatsapp_member_links l
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = l.participant_id
       ORDER BY COALESCE(o.lid, l.participant_id), (o.lid IS NULL) DESC, l.linked_at DESC, l.member_id;

    CREATE VIEW whatsapp_reactions AS
      SELECT chat_jid, target_id, reactor_id, text, reacted_at
        FROM (SELECT DISTINCT ON (x.chat_jid, x.target_id, COALESCE(o.lid, x.reactor_id))
                     x.chat_jid, x.target_id, COALESCE(o.lid, x.reactor_id) AS reactor_id, x.text, x.reacted_at
                FROM whatsapp_message_reactions x
                LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = x.reactor_id
               ORDER BY x.chat_jid, x.target_id, COALESCE(o.lid, x.reactor_id), x.reacted_at DESC, x.event_id DESC) latest
       WHERE text <> '';

    CREATE VIEW whatsapp_messages AS
      SELECT r.chat_jid, r.message_id, COALESCE(o.lid, r.sender_id) AS sender_id, r.sent_at, r.kind,
             r.reply_to_id, r.mention_count, COALESCE(e.edit_count, 0)::int AS edit_count, e.last_edited_at,
             v.deleted_at, COALESCE(x.reaction_count, 0)::int AS reaction_count
        FROM whatsapp_message_records r
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = r.sender_id
        LEFT JOIN (SELECT chat_jid, target_id, count(*) AS edit_count, max(edited_at) AS last_edited_at
                     FROM whatsapp_message_edits GROUP BY chat_jid, target_id) e
               ON e.chat_jid = r.chat_jid AND e.target_id = r.message_id
        LEFT JOIN whatsapp_message_revokes v ON v.chat_jid = r.chat_jid AND v.target_id = r.message_id
        LEFT JOIN (SELECT chat_jid, target_id, count(*) AS reaction_count
                     FROM whatsapp_reactions GROUP BY chat_jid, target_id) x
               ON x.chat_jid = r.chat_jid AND x.target_id = r.message_id
       WHERE r.is_message;

    -- Fast part of the member rollup (from the incrementally kept engagement_member_days table).
    CREATE VIEW engagement_member_activity_days AS
      SELECT d.group_jid, COALESCE(o.lid, d.participant_key) AS participant_id, i.member_id,
             COALESCE(i.member_id, COALESCE(o.lid, d.participant_key)) AS person_key, d.day,
             sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
             sum(d.reactions_given)::int AS reactions_given
        FROM engagement_member_days d
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
       GROUP BY 1, 2, 3, 4, 5
      HAVING sum(d.messages) > 0 OR sum(d.reactions_given) > 0;

    -- What happened to a member's messages, counted on the day it happened (read time: joins the targets).
    CREATE VIEW engagement_member_received_days AS
      SELECT t.chat_jid AS group_jid, COALESCE(o.lid, t.sender_id) AS participant_id,
             (a.at AT TIME ZONE wa_engagement_time_zone())::date AS day,
             count(*) FILTER (WHERE a.activity = 'reaction')::int AS reactions_received,
             count(*) FILTER (WHERE a.activity = 'edit')::int AS edits,
             count(*) FILTER (WHERE a.activity = 'deletion')::int AS deletions
        FROM (SELECT chat_jid, target_id, reacted_at AS at, 'reaction' AS activity FROM whatsapp_reactions
              UNION ALL SELECT chat_jid, target_id, edited_at, 'edit' FROM whatsapp_message_edits
              UNION ALL SELECT chat_jid, target_id, deleted_at, 'deletion' FROM whatsapp_message_revokes) a
        JOIN whatsapp_message_records t ON t.chat_jid = a.chat_jid AND t.message_id = a.target_id
        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = t.sender_id
       WHERE t.is_message AND t.sender_id IS NOT NULL
       GROUP BY 1, 2, 3;

    CREATE VIEW engagement_member_daily AS
      SELECT group_jid, participant_id, i.member_id, COALESCE(i.member_id, participant_id) AS person_key, day,
             COALESCE(a.messages, 0) AS messages, COALESCE(a.replies, 0) AS replies,
             COALESCE(a.reactions_given, 0) AS reactions_given, COALESCE(r.reactions_received, 0) AS reactions_received,
             COALESCE(r.edits, 0) AS edits, COALESCE(r.deletions, 0) AS deletions
        FROM (SELECT group_jid, participant_id, day, messages, replies, reactions_given
                FROM engagement_member_activity_days) a
        FULL JOIN engagement_member_received_days r USING (group_jid, participant_id, day)
        LEFT JOIN whatsapp_member_identities i USING (participant_id);

    -- A join is a presence after an absence (or a first presence); a leave is an absence after a presence
    -- (or a first absence). Facts under a phone JID and its LID collapse into one history.
    CREATE VIEW engagement_membership_changes AS
      SELECT group_jid, participant_id, at, CASE WHEN is_present THEN 'join' ELSE 'leave' END AS change
        FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.at, f.is_present,
                     lag(f.is_present) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id)
                                             ORDER BY f.at, f.event_id) AS was_present
                FROM whatsapp_membership_facts f
                LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id) history
       WHERE was_present IS DISTINCT FROM is_present;

    CREATE VIEW engagement_group_daily AS
      WITH activity AS (
        SELECT group_jid, day, sum(messages)::int AS messages, sum(replies)::int AS replies,
               sum(reactions_given)::int AS reactions, count(DISTINCT person_key)::int AS active_members
          FROM engagement_member_activity_days GROUP BY group_jid, day),
      changes AS (
        SELECT group_jid, (at AT TIME ZONE wa_engagement_time_zone())::date AS day,
               count(*) FILTER (WHERE change = 'join')::int AS joins,
               count(*) FILTER (WHERE change = 'leave')::int AS leaves
          FROM engagement_membership_changes GROUP BY 1, 2)
      SELECT group_jid, day, COALESCE(a.messages, 0) AS messages, COALESCE(a.replies, 0) AS replies,
             COALESCE(a.reactions, 0) AS reactions, COALESCE(a.active_members, 0) AS active_members,
             COALESCE(c.joins, 0) AS joins, COALESCE(c.leaves, 0) AS leaves,
             (SELECT count(*)::int FROM whatsapp_group_memberships m
               WHERE m.group_jid = d.group_jid
                 AND (m.joined_at IS NULL OR (m.joined_at AT TIME ZONE wa_engagement_time_zone())::date <= d.day)
                 AND (m.left_at IS NULL OR (m.left_at AT TIME ZONE wa_engagement_time_zone())::date > d.day))
               AS member_count
        FROM (SELECT group_jid, day FROM activity UNION SELECT group_jid, day FROM changes) d
        LEFT JOIN activity a USING (group_jid, day)
        LEFT JOIN changes c USING (group_jid, day);

    -- Rolling active members: a member active on day d counts on d .. d+window-1. Each active day
    -- contributes +1 on its day and -1 when its window ends or the member's next active day starts,
    -- so the running sum is the number of distinct members active in the window. group_jid NULL = all groups.
    CREATE VIEW engagement_active_members AS
      WITH member_days AS (
        SELECT group_jid, person_key, day FROM engagement_member_activity_days GROUP BY 1, 2, 3
        UNION ALL
        SELECT NULL, person_key, day FROM engagement_member_activity_days GROUP BY 2, 3),
      spans AS (
        SELECT group_jid, day, lead(day) OVER (PARTITION BY group_jid, person_key ORDER BY day) AS next_day
          FROM member_days),
      deltas AS (
        SELECT group_jid, day, w.size, 1 AS delta FROM spans, (VALUES (1), (7), (30)) AS w(size)
        UNION ALL
        SELECT group_jid, LEAST(day + w.size, COALESCE(next_day, day + w.size)), w.size, -1
          FROM spans, (VALUES (1), (7), (30)) AS w(size)),
      per_day AS (
        SELECT group_jid, day, sum(delta) FILTER (WHERE size = 1) AS d1, sum(delta) FILTER (WHERE size = 7) AS d7,
               sum(delta) FILTER (WHERE size = 30) AS d30
          FROM deltas GROUP BY group_jid, day),
      calendar AS (
        SELECT b.group_jid, d::date AS day
          FROM (SELECT group_jid, min(day) AS first_day FROM member_days GROUP BY group_jid) b,
               (SELECT max(day) AS last_day FROM member_days) l,
               generate_series(b.first_day, l.last_day, interval '1 day') AS d)
      SELECT c.group_jid, c.day,
             (sum(COALESCE(p.d1, 0)) OVER running)::int AS dau,
             (sum(COALESCE(p.d7, 0)) OVER running)::int AS wau,
             (sum(COALESCE(p.d30, 0)) OVER running)::int AS mau
        FROM calendar c
        LEFT JOIN per_day p ON p.group_jid IS NOT DISTINCT FROM c.group_jid AND p.day = c.day
      WINDOW running AS (PARTITION BY c.group_jid ORDER BY c.day);

    CREATE VIEW engagement_cohort_retention AS
      WITH cohorts AS (
        SELECT group_jid, participant_id,
               date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
          FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
      sizes AS (SELECT group_jid, cohort_week, count(*)::int AS cohort_size FROM cohorts GROUP BY 1, 2),
      active_weeks AS (
        SELECT DISTINCT group_jid, participant_id, date_trunc('week', day)::date AS week
          FROM engagement_member_activity_days)
      SELECT c.group_jid, c.cohort_week, ((w.week - c.cohort_week) / 7)::int AS week_offset, s.cohort_size,
             count(*)::int AS active_members, round(count(*)::numeric / s.cohort_size, 4) AS retention
        FROM cohorts c
        JOIN active_weeks w ON w.group_jid = c.group_jid AND w.participant_id = c.participant_id
                           AND w.week >= c.cohort_week
        JOIN sizes s ON s.group_jid = c.group_jid AND s.cohort_week = c.cohort_week
       GROUP BY c.group_jid, c.cohort_week, w.week, s.cohort_size;

    CREATE VIEW engagement_lurkers AS
      SELECT m.group_jid, m.participant_id, i.member_id, m.joined_at, last.first_active_day, last.last_active_day,
             (now() AT TIME ZONE wa_engagement_time_zone())::date
               - COALESCE(last.last_active_day, (m.joined_at AT TIME ZONE wa_engagement_time_zone())::date)
               AS days_inactive
        FROM whatsapp_group_memberships m
        LEFT JOIN whatsapp_member_identities i ON i.participant_id = m.participant_id
        LEFT JOIN (SELECT group_jid, participant_id, min(day) AS first_active_day, max(day) AS last_active_day
                     FROM engagement_member_activity_days GROUP BY 1, 2) last
               ON last.group_jid = m.group_jid AND last.participant_id = m.participant_id
       WHERE m.left_at IS NULL;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP VIEW IF EXISTS engagement_lurkers, engagement_cohort_retention, engagement_active_members,
      engagement_group_daily, engagement_membership_changes, engagement_member_daily, engagement_member_received_days,
      engagement_member_activity_days,
      whatsapp_messages, whatsapp_reactions, whatsapp_member_identities, whatsapp_phone_owners;
  `);
}
