import type { MigrationBuilder } from 'node-pg-migrate';

const PARTICIPANT_NAMES = `(SELECT DISTINCT ON (participant_id) participant_id, display_name
                              FROM whatsapp_participant_display_names ORDER BY participant_id)`;
const PERSON_NAMES = `(SELECT DISTINCT ON (person_key) person_key, display_name FROM whatsapp_person_display_names
                         ORDER BY person_key)`;

// The lake's last day with activity (`engagement_member_activity_days` has the same days as the group-day rollup).
const LAST_DAY = '(SELECT max(day) FROM engagement_group_day_parts)';

// DAU, WAU and MAU per scope and day from the scope's first day to the lake's last (the rule of migration
// `1764600000001` as `1765450000003` left it), over `memberDays` (scope, person_key, day).
const ACTIVE_MEMBERS = (memberDays: string): string => `
  SELECT c.scope AS group_jid, c.day, (sum(COALESCE(p.d1, 0)) OVER running)::int AS dau,
         (sum(COALESCE(p.d7, 0)) OVER running)::int AS wau, (sum(COALESCE(p.d30, 0)) OVER running)::int AS mau
    FROM (SELECT s.scope, d::date AS day
            FROM (SELECT scope, min(day) AS first_day FROM (${memberDays}) m GROUP BY scope) s
           CROSS JOIN LATERAL generate_series(s.first_day, ${LAST_DAY}, interval '1 day') d) c
    LEFT JOIN (
          SELECT scope, day, sum(delta) FILTER (WHERE size = 1) AS d1, sum(delta) FILTER (WHERE size = 7) AS d7,
                 sum(delta) FILTER (WHERE size = 30) AS d30
            FROM (SELECT scope, day, w.size, 1 AS delta FROM spans, (VALUES (1), (7), (30)) AS w (size)
                  UNION ALL
                  SELECT scope, LEAST(day + w.size, COALESCE(next_day, day + w.size)), w.size, -1
                    FROM spans, (VALUES (1), (7), (30)) AS w (size)) deltas
           GROUP BY scope, day) p ON p.scope = c.scope AND p.day = c.day
  WINDOW running AS (PARTITION BY c.scope ORDER BY c.day)`;

// A person's day masks per scope and month (person as `engagement_member_activity_days` keys them).
const PERSON_MONTHS = (scope: string): string => `
  SELECT ${scope} AS scope, COALESCE(i.person_key, o.lid, p.participant_key) AS person_key, p.month,
         bit_or(p.days)::int AS days
    FROM engagement_member_month_parts p
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = p.participant_key
    LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, p.participant_key)
   GROUP BY 1, 2, 3`;

// The level rule of migration `1765750000001` over person months (scope, person_key, month, days mask): days of the
// month, of the month and the two before it, and of the best Monday week starting in the month (its days in the next
// month counted too), up to the lake's last month.
const LEVELS = (personMonths: string): string => `
  WITH parts AS NOT MATERIALIZED (${personMonths}),
  weeks AS (
    SELECT scope, person_key, date_trunc('month', week)::date AS month, max(days)::int AS days
      FROM (SELECT p.scope, p.person_key, w.week::date AS week,
                   sum(bit_count((p.days & engagement_month_day_mask(p.month, w.week::date, w.week::date + 6))::bit(32)))
                     AS days
              FROM parts p
             CROSS JOIN LATERAL generate_series(p.month - (extract(isodow FROM p.month)::int - 1),
                                                (p.month + interval '1 month' - interval '1 day')::date,
                                                interval '7 days') AS w (week)
             GROUP BY 1, 2, 3) w
     GROUP BY 1, 2, 3),
  contributions AS (
    SELECT scope, person_key, (month + make_interval(months => k))::date AS month,
           CASE WHEN k = 0 THEN bit_count(days::bit(32))::int ELSE 0 END AS month_days,
           bit_count(days::bit(32))::int AS quarter_days, 0 AS week_days
      FROM parts CROSS JOIN generate_series(0, 2) AS k
    UNION ALL
    SELECT scope, person_key, month, 0, 0, days FROM weeks)
  SELECT scope, person_key, month, sum(month_days)::int AS month_days, sum(quarter_days)::int AS quarter_days,
         max(week_days)::int AS week_days,
         CASE WHEN sum(quarter_days) >= 30 THEN 1 WHEN sum(month_days) >= 7 THEN 2 WHEN max(week_days) >= 2 THEN 3
              ELSE 4 END AS level
    FROM contributions
   WHERE month <= date_trunc('month', ${LAST_DAY})
   GROUP BY 1, 2, 3
  HAVING sum(quarter_days) > 0`;

/**
 * The views a group filter did not reach read one group when one is asked (ADR 0031): each keeps its columns and
 * rows; what changes is where the work is.
 *
 * - `engagement_member_daily`: the activity and the received days summed per key (a `UNION ALL` and a `GROUP BY`)
 *   instead of a FULL JOIN, which no filter crosses.
 * - `engagement_active_members`: each group's days in a branch of its own (windows by group), the all-groups rows in
 *   another, and the lake's last day from the group-day rollup, instead of one shared CTE over every member-day.
 * - `engagement_member_levels`: from the member-month masks (migration `1766000000000`), per group or for all groups;
 *   `engagement_level_transitions` without the explicitly materialized CTE, the last month from the rollup.
 * - `engagement_cohort_retention`: the last week from the rollup's last day instead of every activity week.
 *
 * Irreversible (`down = false`), as migration `1765750000003`: the definitions before are those migrations and the
 * display names left, which this one does not copy.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_member_daily AS
      SELECT v.*, n.display_name
        FROM (SELECT a.group_jid, a.participant_id, i.member_id,
                     COALESCE(i.member_id, a.participant_id)::varchar(255) AS person_key, a.day,
                     sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
                     sum(a.reactions_given)::int AS reactions_given, sum(a.reactions_received)::int AS reactions_received,
                     sum(a.edits)::int AS edits, sum(a.deletions)::int AS deletions
                FROM (SELECT group_jid, participant_id, day, messages, replies, reactions_given, 0 AS reactions_received,
                             0 AS edits, 0 AS deletions
                        FROM engagement_member_activity_days
                      UNION ALL
                      SELECT group_jid, participant_id, day, 0, 0, 0, reactions_received, edits, deletions
                        FROM engagement_member_received_days) a
                LEFT JOIN whatsapp_member_identities i ON i.participant_id = a.participant_id
               GROUP BY a.group_jid, a.participant_id, i.member_id, a.day) v
        LEFT JOIN ${PARTICIPANT_NAMES} n ON n.participant_id = v.participant_id;

    CREATE OR REPLACE VIEW engagement_active_members AS
      SELECT group_jid::varchar AS group_jid, day, dau, wau, mau
        FROM (WITH spans AS NOT MATERIALIZED (
                SELECT scope, day, lead(day) OVER (PARTITION BY scope, person_key ORDER BY day) AS next_day
                  FROM (SELECT group_jid AS scope, person_key, day FROM engagement_member_activity_days
                         GROUP BY 1, 2, 3) m)
              ${ACTIVE_MEMBERS('SELECT group_jid AS scope, day FROM engagement_member_activity_days')}) by_group
      UNION ALL
      SELECT NULL::varchar, day, dau, wau, mau
        FROM (WITH spans AS NOT MATERIALIZED (
                SELECT scope, day, lead(day) OVER (PARTITION BY person_key ORDER BY day) AS next_day
                  FROM (SELECT DISTINCT true AS scope, person_key, day FROM engagement_member_activity_days) m)
              ${ACTIVE_MEMBERS('SELECT true AS scope, day FROM engagement_member_activity_days')}) all_groups;

    CREATE OR REPLACE VIEW engagement_member_levels AS
      SELECT v.*, n.display_name
        FROM (SELECT scope::varchar(255) AS group_jid, person_key::varchar(255) AS person_key, month,
                     month_days AS active_days_month, quarter_days AS active_days_quarter, week_days AS best_week_days,
                     level, (ARRAY['advocate', 'contributor', 'participant', 'explorer'])[level] AS level_name
                FROM (${LEVELS(PERSON_MONTHS('p.group_jid'))}) by_group
              UNION ALL
              SELECT NULL::varchar(255), person_key::varchar(255), month, month_days, quarter_days, week_days, level,
                     (ARRAY['advocate', 'contributor', 'participant', 'explorer'])[level]
                FROM (${LEVELS(PERSON_MONTHS('NULL::varchar'))}) all_groups) v
        LEFT JOIN ${PERSON_NAMES} n ON n.person_key = v.person_key;

    CREATE OR REPLACE VIEW engagement_level_transitions AS
      SELECT v.*, n.display_name
        FROM (WITH levels AS NOT MATERIALIZED (SELECT group_jid, person_key, month, level FROM engagement_member_levels),
              moves AS (
                SELECT group_jid, person_key, month, max(from_level) AS from_level, max(to_level) AS to_level
                  FROM (SELECT group_jid, person_key, month, NULL::int AS from_level, level AS to_level FROM levels
                        UNION ALL
                        SELECT group_jid, person_key, (month + interval '1 month')::date, level, NULL FROM levels
                         WHERE month < date_trunc('month', ${LAST_DAY})) pairs
                 GROUP BY 1, 2, 3)
              SELECT group_jid, person_key, month, from_level, to_level,
                     CASE WHEN from_level IS NULL THEN 'new' WHEN to_level IS NULL THEN 'gone'
                          WHEN to_level < from_level THEN 'up' WHEN to_level > from_level THEN 'down' ELSE 'held' END
                       AS movement
                FROM moves) v
        LEFT JOIN ${PERSON_NAMES} n ON n.person_key = v.person_key;
  `);
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_cohort_retention AS
      ${`WITH cohorts AS NOT MATERIALIZED (
        SELECT group_jid, participant_id,
               date_trunc('week', min(at) AT TIME ZONE wa_engagement_time_zone())::date AS cohort_week
          FROM engagement_membership_changes WHERE change = 'join' GROUP BY 1, 2),
      sizes AS NOT MATERIALIZED (SELECT group_jid, cohort_week, count(*)::int AS cohort_size FROM cohorts GROUP BY 1, 2),
      active_weeks AS NOT MATERIALIZED (
        SELECT DISTINCT group_jid, participant_id, date_trunc('week', day)::date AS week
          FROM engagement_member_activity_days),
      active AS NOT MATERIALIZED (
        SELECT c.group_jid, c.cohort_week, w.week, count(*)::int AS members
          FROM cohorts c
          JOIN active_weeks w ON w.group_jid = c.group_jid AND w.participant_id = c.participant_id
                             AND w.week >= c.cohort_week
         GROUP BY 1, 2, 3),
      last_week AS NOT MATERIALIZED (
        SELECT date_trunc('week', GREATEST(${LAST_DAY}, (SELECT max(cohort_week) FROM cohorts)))::date AS week)
      SELECT s.group_jid, s.cohort_week, (w.week::date - s.cohort_week) / 7 AS week_offset, s.cohort_size,
             COALESCE(a.members, 0) AS active_members, round(COALESCE(a.members, 0)::numeric / s.cohort_size, 4) AS retention
        FROM sizes s
       CROSS JOIN last_week l
       CROSS JOIN LATERAL generate_series(s.cohort_week, l.week, interval '7 days') AS w (week)
        LEFT JOIN active a ON a.group_jid = s.group_jid AND a.cohort_week = s.cohort_week AND a.week = w.week::date`};
  `);
}

export const down = false;
