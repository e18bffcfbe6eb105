import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Newcomers, levels, hours and the previous period (issue #28 item 3, ADR 0025, docs/engagement.md "Newcomers",
 * "Levels", "Hours" and "Previous period"). Additive: views and one function over the existing views, counted when
 * read (ADR 0013), so replay, delivery order and `wa-lake rebuild` cannot change them.
 *
 * - `engagement_activity_hours`: messages per group, local day and local hour (with the ISO weekday), from the
 *   same messages `engagement_member_day_totals` counts (chat-export messages on the days they count).
 * - `engagement_member_levels`: per person (`person_key`), month and group (`group_jid` NULL: all groups), the
 *   presence milestones and the level they give: 1 `advocate` (active on 30 days of the month and the two before
 *   it), 2 `contributor` (7 days of the month), 3 `participant` (2 days of one week starting in the month),
 *   4 `explorer` (active at least once in the three months). A month without activity in those three months has
 *   no level.
 * - `engagement_level_transitions`: per person and month, the level of the month before and of the month, and the
 *   movement (`up`, `held`, `down`, `new`, `gone`); `engagement_level_monthly` counts them per month.
 * - `engagement_newcomer_funnel`: per group and join week (Monday, local), the members who joined, then spoke
 *   (their first message in the group came after the join), were answered within 24 h (ADR 0020's answer rule),
 *   and were active in week 4 and in week 12 after the join week (NULL until the lake's data reaches that week).
 * - `engagement_period_totals(from, to, group)`: each total of the report for a range and the range of equal length
 *   just before it, with the change.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE VIEW engagement_activity_hours AS
      WITH zone AS (SELECT wa_engagement_time_zone() AS tz),
      stamps AS (
        SELECT r.chat_jid AS group_jid, r.sent_at AT TIME ZONE z.tz AS local_at
          FROM whatsapp_message_records_attributed r CROSS JOIN zone z
         WHERE r.is_message AND r.sender_id IS NOT NULL
        UNION ALL
        SELECT m.group_jid, m.sent_at AT TIME ZONE z.tz
          FROM whatsapp_export_messages m
          JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted
         CROSS JOIN zone z)
      SELECT group_jid, day, extract(isodow FROM day)::int AS weekday, hour, messages
        FROM (SELECT group_jid, local_at::date AS day, extract(hour FROM local_at)::int AS hour, count(*)::int AS messages
                FROM stamps GROUP BY 1, 2, 3) hours;

    CREATE VIEW engagement_member_levels AS
      WITH days AS MATERIALIZED (
        SELECT DISTINCT group_jid, person_key, day FROM engagement_member_activity_days),
      scoped AS (
        SELECT group_jid AS scope, person_key, day FROM days
        UNION ALL
        SELECT DISTINCT '', person_key, day FROM days),
      months AS (
        SELECT scope, person_key, date_trunc('month', day)::date AS month, count(*)::int AS days
          FROM scoped GROUP BY 1, 2, 3),
      weeks AS (
        SELECT scope, person_key, date_trunc('month', week)::date AS month, max(days)::int AS days
          FROM (SELECT scope, person_key, date_trunc('week', day)::date AS week, count(*) AS days
                  FROM scoped GROUP BY 1, 2, 3) w
         GROUP BY 1, 2, 3),
      contributions AS (
        SELECT scope, person_key, (month + make_interval(months => k))::date AS month,
               CASE WHEN k = 0 THEN days ELSE 0 END AS month_days, days AS quarter_days, 0 AS week_days
          FROM months CROSS JOIN generate_series(0, 2) AS k
        UNION ALL
        SELECT scope, person_key, month, 0, 0, days FROM weeks),
      leveled AS (
        SELECT scope, person_key, month, sum(month_days)::int AS month_days, sum(quarter_days)::int AS quarter_days,
               max(week_days)::int AS week_days,
               CASE WHEN sum(quarter_days) >= 30 THEN 1 WHEN sum(month_days) >= 7 THEN 2 WHEN max(week_days) >= 2 THEN 3
                    ELSE 4 END AS level
          FROM contributions
         WHERE month <= (SELECT date_trunc('month', max(day)) FROM days)
         GROUP BY 1, 2, 3
         HAVING sum(quarter_days) > 0)
      SELECT NULLIF(scope, '')::varchar(255) AS group_jid, person_key, month, month_days AS active_days_month,
             quarter_days AS active_days_quarter, week_days AS best_week_days, level,
             (ARRAY['advocate', 'contributor', 'participant', 'explorer'])[level] AS level_name
        FROM leveled;

    CREATE VIEW engagement_level_transitions AS
      WITH levels AS MATERIALIZED (
        SELECT COALESCE(group_jid, '') AS scope, person_key, month, level FROM engagement_member_levels),
      pairs AS (
        SELECT scope, person_key, month, NULL::int AS from_level, level AS to_level FROM levels
        UNION ALL
        SELECT scope, person_key, (month + interval '1 month')::date, level, NULL FROM levels
         WHERE month < (SELECT max(month) FROM levels)),
      moves AS (
        SELECT scope, person_key, month, max(from_level) AS from_level, max(to_level) AS to_level
          FROM pairs GROUP BY 1, 2, 3)
      SELECT NULLIF(scope, '')::varchar(255) AS group_jid, person_key, month, from_level, to_level,
             CASE WHEN from_level IS NULL THEN 'new' WHEN to_level IS NULL THEN 'gone' WHEN to_level < from_level THEN 'up'
                  WHEN to_level > from_level THEN 'down' ELSE 'held' END AS movement
        FROM moves;

    CREATE VIEW engagement_level_monthly AS
      SELECT group_jid, month,
             count(*) FILTER (WHERE to_level = 1)::int AS advocates,
             count(*) FILTER (WHERE to_level = 2)::int AS contributors,
             count(*) FILTER (WHERE to_level = 3)::int AS participants,
             count(*) FILTER (WHERE to_level = 4)::int AS explorers,
             count(*) FILTER (WHERE movement = 'up')::int AS moved_up,
             count(*) FILTER (WHERE movement = 'held')::int AS held,
             count(*) FILTER (WHERE movement = 'down')::int AS moved_down,
             count(*) FILTER (WHERE movement = 'new')::int AS new,
             count(*) FILTER (WHERE movement = 'gone')::int AS gone
        FROM engagement_level_transitions
       GROUP BY 1, 2;

    CREATE VIEW engagement_newcomer_funnel AS
      WITH cohorts AS (
        SELECT group_jid, participant_id,
               date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
          FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
      firsts AS (
        SELECT group_jid, sender_id AS participant_id, bool_or(response_seconds <= 86400) AS is_answered
          FROM engagement_unanswered_candidates WHERE is_newcomer_first GROUP BY 1, 2),
      active_weeks AS (
        SELECT DISTINCT group_jid, participant_id, date_trunc('week', day)::date AS week
          FROM engagement_member_activity_days),
      last_week AS (
        SELECT date_trunc('week', GREATEST((SELECT max(week) FROM active_weeks),
                                           (SELECT max(cohort_week) FROM cohorts)))::date AS week)
      SELECT c.group_jid, c.cohort_week, count(*)::int AS joined, count(f.participant_id)::int AS first_message,
             count(*) FILTER (WHERE f.is_answered)::int AS answered_within_24h,
             CASE WHEN c.cohort_week + 28 <= l.week THEN count(w4.week) END::int AS active_week_4,
             CASE WHEN c.cohort_week + 84 <= l.week THEN count(w12.week) END::int AS active_week_12
        FROM cohorts c
        CROSS JOIN last_week l
        LEFT JOIN firsts f ON f.group_jid = c.group_jid AND f.participant_id = c.participant_id
        LEFT JOIN active_weeks w4 ON w4.group_jid = c.group_jid AND w4.participant_id = c.participant_id
                                 AND w4.week = c.cohort_week + 28
        LEFT JOIN active_weeks w12 ON w12.group_jid = c.group_jid AND w12.participant_id = c.participant_id
                                  AND w12.week = c.cohort_week + 84
       GROUP BY c.group_jid, c.cohort_week, l.week;

    CREATE FUNCTION engagement_period_totals(p_from date, p_to date, p_group text DEFAULT NULL)
      RETURNS TABLE (metric text, current_value bigint, previous_value bigint, change bigint, change_percent numeric,
                     previous_from date, previous_to date)
      LANGUAGE sql STABLE AS $$
      WITH bounds AS (SELECT p_from - (p_to - p_from + 1) AS pf, p_from - 1 AS pt),
      people AS (
        SELECT d.day >= p_from AS is_current, d.group_jid, d.person_key, sum(d.messages) AS messages,
               sum(d.reactions_given) AS reactions
          FROM engagement_member_activity_days d CROSS JOIN bounds b
         WHERE d.day BETWEEN b.pf AND p_to AND (p_group IS NULL OR d.group_jid = p_group)
         GROUP BY 1, 2, 3),
      activity AS (
        SELECT is_current, sum(messages) AS messages, count(DISTINCT person_key) AS active_members,
               count(DISTINCT group_jid) AS groups, sum(reactions) AS reactions
          FROM people GROUP BY 1),
      changes AS (
        SELECT (c.at AT TIME ZONE wa_engagement_time_zone())::date >= p_from AS is_current,
               count(*) FILTER (WHERE c.change = 'join') AS joins, count(*) FILTER (WHERE c.change = 'leave') AS leaves
          FROM engagement_membership_changes c CROSS JOIN bounds b
         WHERE (c.at AT TIME ZONE wa_engagement_time_zone())::date BETWEEN b.pf AND p_to
           AND (p_group IS NULL OR c.group_jid = p_group)
         GROUP BY 1),
      periods AS (SELECT true AS is_current UNION ALL SELECT false),
      metrics AS (
        SELECT v.metric, v.position, p.is_current, v.value
          FROM periods p
          LEFT JOIN activity a USING (is_current)
          LEFT JOIN changes c USING (is_current)
         CROSS JOIN LATERAL (VALUES ('messages', 1, COALESCE(a.messages, 0)),
                                    ('active_members', 2, COALESCE(a.active_members, 0)),
                                    ('groups', 3, COALESCE(a.groups, 0)),
                                    ('reactions', 4, COALESCE(a.reactions, 0)),
                                    ('joins', 5, COALESCE(c.joins, 0)),
                                    ('leaves', 6, COALESCE(c.leaves, 0))) AS v(metric, position, value))
      SELECT cur.metric, cur.value::bigint, prev.value::bigint, (cur.value - prev.value)::bigint,
             CASE WHEN prev.value <> 0 THEN round((cur.value - prev.value) * 100.0 / prev.value, 1) END,
             b.pf, b.pt
        FROM metrics cur
        JOIN metrics prev ON prev.metric = cur.metric AND NOT prev.is_current
       CROSS JOIN bounds b
       WHERE cur.is_current
       ORDER BY cur.position
    $$;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP FUNCTION engagement_period_totals(date, date, text);
    DROP VIEW engagement_newcomer_funnel;
    DROP VIEW engagement_level_monthly;
    DROP VIEW engagement_level_transitions;
    DROP VIEW engagement_member_levels;
    DROP VIEW engagement_activity_hours;
  `);
}
