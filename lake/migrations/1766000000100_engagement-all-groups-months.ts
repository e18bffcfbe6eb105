import type { MigrationBuilder } from 'node-pg-migrate';

// The rows of the group-level month tables (migration `1766000000000`) summed across groups, for the months in
// `months` (every month when it is null).
const KEY_MONTHS = (months: string): string => `
  SELECT participant_key, month, bit_or(days)::int AS days, sum(messages)::int AS messages, sum(replies)::int AS replies,
         sum(reactions_given)::int AS reactions_given, sum(poll_votes)::int AS poll_votes
    FROM engagement_rollup_member_months WHERE ${months} IS NULL OR month = ANY (${months})
   GROUP BY participant_key, month`;
const ALL_HOUR_MONTHS = (months: string): string => `
  SELECT month, weekday, hour, bit_or(days)::int AS days, sum(messages)::int AS messages
    FROM engagement_rollup_hour_months WHERE ${months} IS NULL OR month = ANY (${months})
   GROUP BY month, weekday, hour`;

// A kept row is read while the group-level tables are current and were summed in the zone they are counted in; its
// month while no visible mark names a day of it in any group.
const FRESH = (table: string): string => `
  SELECT c.* FROM ${table} c
   WHERE (SELECT engagement_rollup_all_groups_is_current())
     AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_months() s WHERE s.month = c.month)`;

// The rows of a group-level view (`parts`, columns `columns`) that the kept rows do not stand for: every row while the
// kept rows are not current, else the rows of the months a visible mark names and the chat-export rows of the others.
const FROM_GROUPS = (parts: string, exportParts: string, columns: string, sums: string): string => `
  SELECT ${columns}, ${sums} FROM ${parts} p
   WHERE NOT (SELECT engagement_rollup_all_groups_is_current())
   GROUP BY ${columns}
  UNION ALL
  SELECT ${columns}, ${sums} FROM ${parts} p
   WHERE (SELECT engagement_rollup_all_groups_is_current())
     AND p.month IN (SELECT s.month FROM engagement_rollup_stale_months() s)
   GROUP BY ${columns}
  UNION ALL
  SELECT ${columns}, ${sums} FROM (${exportParts}) p
   WHERE (SELECT engagement_rollup_all_groups_is_current())
     AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_months() s WHERE s.month = p.month)
   GROUP BY ${columns}`;

const MONTH_OF = (day: string): string => `date_trunc('month', ${day})::date`;
const DAY_BIT = (day: string): string => `(1 << (extract(day FROM ${day})::int - 1))`;
const EXPORT_MEMBER_MONTHS = `
  SELECT participant_key, ${MONTH_OF('day')} AS month, ${DAY_BIT('day')} AS days, messages, replies, reactions_given,
         poll_votes
    FROM engagement_export_member_days()`;
const EXPORT_HOUR_MONTHS = `
  SELECT ${MONTH_OF('day')} AS month, extract(isodow FROM day)::int AS weekday, hour, ${DAY_BIT('day')} AS days,
         messages
    FROM engagement_export_hours()`;

/**
 * The month tables across groups (ADR 0032): the report and the dashboard over all groups read one row per
 * participant key and month, and one per month, weekday and hour, instead of one per group as well.
 *
 * - `engagement_rollup_key_months`: per participant key (as the events named it) and local month, the OR of its day
 *   masks in every group and the sums of its messages, replies, reactions given and poll votes;
 *   `engagement_rollup_all_hour_months`: per month, ISO weekday and local hour, the messages of every group and the
 *   OR of their day masks. Both are sums of the group-level month tables (`engagement_rollup_member_months`,
 *   `engagement_rollup_hour_months`), recounted when those are: a statement trigger on the catch-up's deletion of
 *   the marks it folded recounts the months those marks name (every month after a full recount: a mark without a
 *   group among them, or a zone other than the one the sums were made in), in the catch-up's transaction, after
 *   the group-level tables. It depends on no text of the catch-up function, only on it deleting the marks last.
 * - `engagement_key_month_parts`, `engagement_all_hour_month_parts`: the kept rows of the months no visible mark names
 *   in any group, the group-level views (themselves exact at every read) summed for the marked months, and the
 *   chat-export rows of the others; every month from the group-level views while the kept rows are not current.
 *   Several rows may share a key and month (sum them; OR the masks).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_rollup_key_months (
      participant_key varchar(255) NOT NULL, month date NOT NULL, days integer NOT NULL, messages integer NOT NULL,
      replies integer NOT NULL, reactions_given integer NOT NULL, poll_votes integer NOT NULL,
      PRIMARY KEY (month, participant_key));
    CREATE INDEX engagement_rollup_key_months_key_index ON engagement_rollup_key_months (participant_key, month);
    CREATE TABLE engagement_rollup_all_hour_months (
      month date NOT NULL, weekday integer NOT NULL, hour integer NOT NULL, days integer NOT NULL,
      messages integer NOT NULL, PRIMARY KEY (month, weekday, hour));
    -- The zone the sums across groups were made in (the group-level tables' zone at that moment).
    CREATE TABLE engagement_rollup_all_groups_state (time_zone text);
    INSERT INTO engagement_rollup_all_groups_state SELECT time_zone FROM engagement_rollup_state;

    CREATE FUNCTION engagement_rollup_all_groups_is_current() RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT engagement_rollup_is_current()
             AND (SELECT a.time_zone FROM engagement_rollup_all_groups_state a)
                 IS NOT DISTINCT FROM wa_engagement_time_zone()
    $$;

    -- Recounts the sums across groups of \`months\` (every month when null) from the group-level month tables.
    CREATE FUNCTION engagement_rollup_count_all_groups(months date[]) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM engagement_rollup_key_months WHERE months IS NULL OR month = ANY (months);
      INSERT INTO engagement_rollup_key_months ${KEY_MONTHS('months')};
      DELETE FROM engagement_rollup_all_hour_months WHERE months IS NULL OR month = ANY (months);
      INSERT INTO engagement_rollup_all_hour_months ${ALL_HOUR_MONTHS('months')};
      UPDATE engagement_rollup_all_groups_state SET time_zone = (SELECT s.time_zone FROM engagement_rollup_state s);
      IF months IS NULL THEN
        ANALYZE engagement_rollup_key_months;
        ANALYZE engagement_rollup_all_hour_months;
      END IF;
    END $$;

    -- The catch-up deletes the marks it folded last, after recounting the group-level tables for them.
    CREATE FUNCTION engagement_rollup_fold_all_groups() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE tz text := wa_engagement_time_zone();
    BEGIN
      IF EXISTS (SELECT 1 FROM folded WHERE group_jid IS NULL)
         OR (SELECT a.time_zone FROM engagement_rollup_all_groups_state a)
            IS DISTINCT FROM (SELECT s.time_zone FROM engagement_rollup_state s) THEN
        PERFORM engagement_rollup_count_all_groups(NULL);
      ELSE
        PERFORM engagement_rollup_count_all_groups(ARRAY(
          SELECT DISTINCT ${MONTH_OF('d')}
            FROM folded m,
                 generate_series((m.from_at AT TIME ZONE tz)::date, (m.to_at AT TIME ZONE tz)::date, interval '1 day') d));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER engagement_rollup_marks_fold_all_groups AFTER DELETE ON engagement_rollup_marks
      REFERENCING OLD TABLE AS folded FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollup_fold_all_groups();

    CREATE VIEW engagement_key_month_parts AS
      SELECT participant_key, month, days, messages, replies, reactions_given, poll_votes
        FROM (${FRESH('engagement_rollup_key_months')}) kept
      UNION ALL
      ${FROM_GROUPS(
        'engagement_member_month_parts',
        EXPORT_MEMBER_MONTHS,
        'p.participant_key, p.month',
        `bit_or(p.days)::int, sum(p.messages)::int, sum(p.replies)::int, sum(p.reactions_given)::int,
         sum(p.poll_votes)::int`
      )};
    CREATE VIEW engagement_all_hour_month_parts AS
      SELECT month, weekday, hour, days, messages FROM (${FRESH('engagement_rollup_all_hour_months')}) kept
      UNION ALL
      ${FROM_GROUPS(
        'engagement_hour_month_parts',
        EXPORT_HOUR_MONTHS,
        'p.month, p.weekday, p.hour',
        'bit_or(p.days)::int, sum(p.messages)::int'
      )};

    -- Summed once here from the group-level tables as they are: the months a visible mark names are read from the
    -- group-level views and recounted by the next catch-up.
    SELECT engagement_rollup_count_all_groups(NULL);
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP VIEW engagement_all_hour_month_parts, engagement_key_month_parts;
    DROP TRIGGER engagement_rollup_marks_fold_all_groups ON engagement_rollup_marks;
    DROP FUNCTION engagement_rollup_fold_all_groups(), engagement_rollup_count_all_groups(date[]),
      engagement_rollup_all_groups_is_current();
    DROP TABLE engagement_rollup_all_groups_state, engagement_rollup_all_hour_months, engagement_rollup_key_months;
  `);
}
