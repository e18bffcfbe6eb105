import type { MigrationBuilder } from 'node-pg-migrate';

// The rows of the group-level hour-month table (migration `1766000000000`) summed across groups, for the months in
// `months` (every month when it is null).
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
const EXPORT_HOUR_MONTHS = `
  SELECT ${MONTH_OF('day')} AS month, extract(isodow FROM day)::int AS weekday, hour, ${DAY_BIT('day')} AS days,
         messages
    FROM engagement_export_hours()`;

/**
 * The hour months across groups (ADR 0032): the report and the dashboard over all groups read one row per month,
 * weekday and hour instead of one per group as well (168 rows a month instead of 168 per group and month).
 *
 * - `engagement_rollup_all_hour_months`: per month, ISO weekday and local hour, the messages of every group and the
 *   OR of their day masks: the group-level hour months (`engagement_rollup_hour_months`) summed, recounted when they
 *   are. A statement trigger on the catch-up's deletion of the marks it folded recounts the months those marks name
 *   (every month after a full recount: a mark without a group among them, or a zone other than the one the sums were
 *   made in), in the catch-up's transaction, after the group-level tables. It depends on no text of the catch-up
 *   function, only on the catch-up deleting the marks it folded last.
 * - `engagement_all_hour_month_parts`: the kept rows of the months no visible mark names in any group, the
 *   group-level view (itself exact at every read) summed for the marked months, and the chat-export rows of the
 *   others; every month from the group-level view while the kept rows are not current. Several rows may share a
 *   month, weekday and hour (sum them; OR the masks).
 *
 * Per participant key and month across groups it keeps nothing: the report reads every group's member months anyway
 * (each group's active people and cohort weeks need them), and the people's months are OR-ed from those rows.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
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
      DELETE FROM engagement_rollup_all_hour_months WHERE months IS NULL OR month = ANY (months);
      INSERT INTO engagement_rollup_all_hour_months ${ALL_HOUR_MONTHS('months')};
      UPDATE engagement_rollup_all_groups_state SET time_zone = (SELECT s.time_zone FROM engagement_rollup_state s);
      IF months IS NULL THEN ANALYZE engagement_rollup_all_hour_months; END IF;
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
    DROP VIEW engagement_all_hour_month_parts;
    DROP TRIGGER engagement_rollup_marks_fold_all_groups ON engagement_rollup_marks;
    DROP FUNCTION engagement_rollup_fold_all_groups(), engagement_rollup_count_all_groups(date[]),
      engagement_rollup_all_groups_is_current();
    DROP TABLE engagement_rollup_all_groups_state, engagement_rollup_all_hour_months;
  `);
}
