import type { MigrationBuilder } from 'node-pg-migrate';

// A local day's bit in its month's mask: bit 0 is the 1st.
const DAY_BIT = (day: string): string => `(1 << (extract(day FROM ${day})::int - 1))`;
const MONTH_OF = (day: string): string => `date_trunc('month', ${day})::date`;

// The member-month, group-day and hour-month rows of a set of member-day and hour-day rows (`days`, `hours`): the
// one rule for both the catch-up and the recount at read time.
const MEMBER_MONTHS = (days: string): string => `
  SELECT d.group_jid, d.participant_key, ${MONTH_OF('d.day')} AS month, bit_or(${DAY_BIT('d.day')})::int AS days,
         sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
         sum(d.reactions_given)::int AS reactions_given, sum(d.poll_votes)::int AS poll_votes
    FROM (${days}) d
   GROUP BY d.group_jid, d.participant_key, ${MONTH_OF('d.day')}`;
const GROUP_DAYS = (days: string): string => `
  SELECT d.group_jid, d.day, sum(d.messages)::int AS messages, sum(d.replies)::int AS replies,
         sum(d.reactions_given)::int AS reactions_given, sum(d.poll_votes)::int AS poll_votes
    FROM (${days}) d
   GROUP BY d.group_jid, d.day`;
const HOUR_MONTHS = (hours: string): string => `
  SELECT h.group_jid, ${MONTH_OF('h.day')} AS month, extract(isodow FROM h.day)::int AS weekday, h.hour,
         bit_or(${DAY_BIT('h.day')})::int AS days, sum(h.messages)::int AS messages
    FROM (${hours}) h
   GROUP BY h.group_jid, ${MONTH_OF('h.day')}, extract(isodow FROM h.day)::int, h.hour`;

const STALE_MONTHS = `(SELECT DISTINCT s.group_jid, ${MONTH_OF('s.day')} AS month FROM engagement_rollup_stale_days() s)`;

// The rows of the day-level tables in the stale months, except their stale days (recounted apart).
const TABLE_DAYS_OF_STALE_MONTHS = (table: string): string => `
  SELECT c.* FROM ${STALE_MONTHS} m
    JOIN ${table} c ON c.group_jid = m.group_jid AND c.day >= m.month AND c.day < (m.month + interval '1 month')::date
   WHERE NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s WHERE s.group_jid = c.group_jid AND s.day = c.day)`;

// Every rollup table, caught up from the same marks: each day-level table named in `engagement_rollup_day_tables`
// (`engagement_rollup_<name>`, recounted by `engagement_rollup_recount_<name>()`) on its stale days from the read
// model, then the month and group-day tables from the day-level tables, already caught up in this transaction.
const CATCH_UP = `
  CREATE OR REPLACE FUNCTION engagement_rollup_catch_up() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE folded integer; day_table text;
  BEGIN
    IF current_setting('transaction_isolation') = 'read committed' THEN
      RAISE EXCEPTION 'engagement_rollup_catch_up() needs a repeatable-read transaction';
    END IF;
    IF NOT pg_try_advisory_xact_lock(hashtext('engagement_rollup_catch_up')) THEN RETURN -1; END IF;
    IF NOT engagement_rollup_is_current() THEN
      FOR day_table IN SELECT name FROM engagement_rollup_day_tables ORDER BY name LOOP
        EXECUTE format('DELETE FROM %I', 'engagement_rollup_' || day_table);
        EXECUTE format('INSERT INTO %I SELECT * FROM %I()', 'engagement_rollup_' || day_table,
                       'engagement_rollup_recount_' || day_table);
      END LOOP;
      DELETE FROM engagement_rollup_member_months;
      DELETE FROM engagement_rollup_group_days;
      DELETE FROM engagement_rollup_hour_months;
      INSERT INTO engagement_rollup_member_months ${MEMBER_MONTHS('SELECT * FROM engagement_rollup_member_days')};
      INSERT INTO engagement_rollup_group_days ${GROUP_DAYS('SELECT * FROM engagement_rollup_member_days')};
      INSERT INTO engagement_rollup_hour_months ${HOUR_MONTHS('SELECT * FROM engagement_rollup_hours')};
    ELSE
      CREATE TEMP TABLE engagement_stale_days ON COMMIT DROP AS SELECT * FROM engagement_rollup_stale_days();
      CREATE TEMP TABLE engagement_stale_months ON COMMIT DROP AS
        SELECT DISTINCT group_jid, ${MONTH_OF('day')} AS month FROM engagement_stale_days;
      FOR day_table IN SELECT name FROM engagement_rollup_day_tables ORDER BY name LOOP
        EXECUTE format('DELETE FROM %I c USING engagement_stale_days s WHERE c.group_jid = s.group_jid AND c.day = s.day',
                       'engagement_rollup_' || day_table);
        EXECUTE format('INSERT INTO %I SELECT * FROM %I()', 'engagement_rollup_' || day_table,
                       'engagement_rollup_recount_' || day_table);
      END LOOP;
      DELETE FROM engagement_rollup_member_months c USING engagement_stale_months s
       WHERE c.group_jid = s.group_jid AND c.month = s.month;
      DELETE FROM engagement_rollup_group_days c USING engagement_stale_days s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;
      DELETE FROM engagement_rollup_hour_months c USING engagement_stale_months s
       WHERE c.group_jid = s.group_jid AND c.month = s.month;
      INSERT INTO engagement_rollup_member_months ${MEMBER_MONTHS(`
        SELECT c.* FROM engagement_stale_months m
          JOIN engagement_rollup_member_days c ON c.group_jid = m.group_jid AND c.day >= m.month
                                              AND c.day < (m.month + interval '1 month')::date`)};
      INSERT INTO engagement_rollup_group_days ${GROUP_DAYS(`
        SELECT c.* FROM engagement_stale_days s
          JOIN engagement_rollup_member_days c ON c.group_jid = s.group_jid AND c.day = s.day`)};
      INSERT INTO engagement_rollup_hour_months ${HOUR_MONTHS(`
        SELECT c.* FROM engagement_stale_months m
          JOIN engagement_rollup_hours c ON c.group_jid = m.group_jid AND c.day >= m.month
                                        AND c.day < (m.month + interval '1 month')::date`)};
      DROP TABLE engagement_stale_days, engagement_stale_months;
    END IF;
    UPDATE engagement_rollup_state SET time_zone = wa_engagement_time_zone();
    DELETE FROM engagement_rollup_marks;
    GET DIAGNOSTICS folded = ROW_COUNT;
    RETURN folded;
  EXCEPTION WHEN serialization_failure THEN
    -- Another catch-up committed after this transaction's snapshot: it folded these marks already.
    RETURN -1;
  END $$;`;

// The catch-up of migration `1765900000000`, for `down`.
const PREVIOUS_CATCH_UP = `
  CREATE OR REPLACE FUNCTION engagement_rollup_catch_up() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE folded integer;
  BEGIN
    IF current_setting('transaction_isolation') = 'read committed' THEN
      RAISE EXCEPTION 'engagement_rollup_catch_up() needs a repeatable-read transaction';
    END IF;
    IF NOT pg_try_advisory_xact_lock(hashtext('engagement_rollup_catch_up')) THEN RETURN -1; END IF;
    IF NOT engagement_rollup_is_current() THEN
      DELETE FROM engagement_rollup_member_days;
      DELETE FROM engagement_rollup_hours;
      DELETE FROM engagement_rollup_first_messages;
    ELSE
      DELETE FROM engagement_rollup_member_days c USING engagement_rollup_stale_days() s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;
      DELETE FROM engagement_rollup_hours c USING engagement_rollup_stale_days() s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;
      DELETE FROM engagement_rollup_first_messages c USING engagement_rollup_stale_days() s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;
    END IF;
    INSERT INTO engagement_rollup_member_days SELECT * FROM engagement_rollup_recount_member_days();
    INSERT INTO engagement_rollup_hours SELECT * FROM engagement_rollup_recount_hours();
    INSERT INTO engagement_rollup_first_messages SELECT * FROM engagement_rollup_recount_first_messages();
    UPDATE engagement_rollup_state SET time_zone = wa_engagement_time_zone();
    DELETE FROM engagement_rollup_marks;
    GET DIAGNOSTICS folded = ROW_COUNT;
    RETURN folded;
  EXCEPTION WHEN serialization_failure THEN
    RETURN -1;
  END $$;`;

// A recount at read time: the stale months (stale days for group days) from the day-level tables and their own
// recount of the stale days; everything from the read model when the tables are not current.
const RECOUNT = (name: string, returns: string, whole: string, stale: string): string => `
  CREATE FUNCTION ${name}() RETURNS TABLE (${returns}) LANGUAGE plpgsql STABLE ROWS 100 AS $$
  BEGIN
    IF NOT engagement_rollup_is_current() THEN
      RETURN QUERY ${whole};
      RETURN;
    END IF;
    RETURN QUERY ${stale};
  END $$;`;

const MEMBER_MONTH_COLUMNS = `group_jid varchar(255), participant_key varchar(255), month date, days integer,
  messages integer, replies integer, reactions_given integer, poll_votes integer`;
const GROUP_DAY_COLUMNS = `group_jid varchar(255), day date, messages integer, replies integer, reactions_given integer,
  poll_votes integer`;
const HOUR_MONTH_COLUMNS = `group_jid varchar(255), month date, weekday integer, hour integer, days integer,
  messages integer`;

// Chat-export messages on the days they count (ADR 0023), as member-days and hour-days: counted when read.
const EXPORT_MEMBER_DAYS = `
  SELECT m.group_jid, m.participant_key, m.day, count(*)::int AS messages, 0 AS replies, 0 AS reactions_given,
         0 AS poll_votes
    FROM whatsapp_export_messages m
    JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted
   GROUP BY 1, 2, 3`;
const EXPORT_HOURS = `
  SELECT m.group_jid, m.day, extract(hour FROM m.sent_at AT TIME ZONE wa_engagement_time_zone())::int AS hour,
         count(*)::int AS messages
    FROM whatsapp_export_messages m
    JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted
   GROUP BY 1, 2, 3`;

// The captured part of the member-day rollup and hour counts, as migration `1765800000000` reads them.
const CAPTURED_MEMBER_DAYS = `
  SELECT c.group_jid, c.participant_key, c.day, c.messages, c.replies, c.reactions_given, c.poll_votes
    FROM engagement_rollup_member_days c
   WHERE (SELECT engagement_rollup_is_current())
     AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s WHERE s.group_jid = c.group_jid AND s.day = c.day)
  UNION ALL
  SELECT * FROM engagement_rollup_recount_member_days()`;
const CAPTURED_HOURS = `
  SELECT c.group_jid, c.day, c.hour, c.messages
    FROM engagement_rollup_hours c
   WHERE (SELECT engagement_rollup_is_current())
     AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s WHERE s.group_jid = c.group_jid AND s.day = c.day)
  UNION ALL
  SELECT * FROM engagement_rollup_recount_hours()`;

// `engagement_member_day_totals` and `engagement_activity_hours` with the export rows given by `exports`.
const DAY_VIEWS = (memberDayExports: string, hourExports: string): string => `
  CREATE OR REPLACE VIEW engagement_member_day_totals AS
    SELECT a.group_jid::varchar(255) AS group_jid, a.participant_key::varchar(255) AS participant_key, a.day,
           sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
           sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
      FROM (${CAPTURED_MEMBER_DAYS} UNION ALL ${memberDayExports}) a
     GROUP BY a.group_jid, a.participant_key, a.day;
  CREATE OR REPLACE VIEW engagement_activity_hours AS
    SELECT group_jid::varchar(255) AS group_jid, day, extract(isodow FROM day)::int AS weekday, hour, messages
      FROM (SELECT group_jid, day, hour, sum(messages)::int AS messages
              FROM (${CAPTURED_HOURS} UNION ALL ${hourExports}) counted GROUP BY 1, 2, 3) hours;`;

// The table's rows whose group-month (group-day) no visible mark names, while the tables are current.
const FRESH = (table: string, unit: 'month' | 'day'): string => `
  SELECT c.* FROM ${table} c
   WHERE (SELECT engagement_rollup_is_current())
     AND NOT EXISTS (SELECT 1 FROM ${unit === 'month' ? 'engagement_rollup_stale_months()' : 'engagement_rollup_stale_days()'} s
                      WHERE s.group_jid = c.group_jid AND s.${unit} = c.${unit})`;

/**
 * Month-level rollups under the rollup's marks (ADR 0031): the report of a year and the views of a group and a month
 * read a row per member and month, per group and day, per group, month, weekday and hour, instead of every member-day
 * or hour of the range.
 *
 * - `engagement_rollup_member_months`: per group, participant key (as the events named it) and local month, the
 *   days with activity as a bit mask (bit 0 = the 1st) and the month's messages, replies, reactions given and poll
 *   votes; `engagement_rollup_group_days`: per group and local day, the same sums; `engagement_rollup_hour_months`:
 *   per group, month, ISO weekday and local hour, the messages and the days they fell on. All three are the captured
 *   part of `engagement_member_day_totals` and `engagement_activity_hours` summed, caught up by
 *   `engagement_rollup_catch_up()` from the same marks, after the day-level tables, in the same transaction. The
 *   catch-up recounts the day-level tables named in `engagement_rollup_day_tables`, so a later table adds a row.
 * - `engagement_member_month_parts`, `engagement_group_day_parts`, `engagement_hour_month_parts`: the tables except the
 *   group-months (group-days) a visible mark names, those recounted at the same snapshot from the day-level tables and
 *   their recount, and the chat-export rows: exact at every read as the day-level views are. A key may have a captured
 *   and an export row in one month; `engagement_member_months`, `engagement_group_day_totals` and
 *   `engagement_hour_months` sum them.
 * - `engagement_month_day_mask(month, from, to)`: the bits of a month's days that fall in a range of days.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_rollup_member_months (
      group_jid varchar(255) NOT NULL, participant_key varchar(255) NOT NULL, month date NOT NULL, days integer NOT NULL,
      messages integer NOT NULL, replies integer NOT NULL, reactions_given integer NOT NULL, poll_votes integer NOT NULL);
    CREATE INDEX engagement_rollup_member_months_index ON engagement_rollup_member_months (group_jid, month);
    CREATE INDEX engagement_rollup_member_months_month_index ON engagement_rollup_member_months (month);
    CREATE INDEX engagement_rollup_member_months_key_index ON engagement_rollup_member_months (participant_key, month);
    CREATE TABLE engagement_rollup_group_days (
      group_jid varchar(255) NOT NULL, day date NOT NULL, messages integer NOT NULL, replies integer NOT NULL,
      reactions_given integer NOT NULL, poll_votes integer NOT NULL);
    CREATE INDEX engagement_rollup_group_days_index ON engagement_rollup_group_days (group_jid, day);
    CREATE INDEX engagement_rollup_group_days_day_index ON engagement_rollup_group_days (day);
    CREATE TABLE engagement_rollup_hour_months (
      group_jid varchar(255) NOT NULL, month date NOT NULL, weekday integer NOT NULL, hour integer NOT NULL,
      days integer NOT NULL, messages integer NOT NULL);
    CREATE INDEX engagement_rollup_hour_months_index ON engagement_rollup_hour_months (group_jid, month);
    CREATE INDEX engagement_rollup_hour_months_month_index ON engagement_rollup_hour_months (month);
    -- The member-day table by key: a person's days without reading every member's.
    CREATE INDEX engagement_rollup_member_days_key_index ON engagement_rollup_member_days (participant_key, day);

    CREATE FUNCTION engagement_month_day_mask(month date, from_day date, to_day date) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN GREATEST(from_day, month) > LEAST(to_day, (month + interval '1 month')::date - 1) THEN 0
                  ELSE (((1::bigint << (LEAST(to_day, (month + interval '1 month')::date - 1) - GREATEST(from_day, month) + 1))
                         - 1) << (GREATEST(from_day, month) - month))::int END
    $$;

    -- After a catch-up few days are marked. Inlined (SQL) or estimated at the default 1,000 rows, the anti-joins of
    -- the views against them came out at one row, and the plans above them at nested loops over whole tables.
    CREATE FUNCTION engagement_rollup_stale_months() RETURNS TABLE (group_jid varchar(255), month date)
    LANGUAGE plpgsql STABLE ROWS 10 AS $$ BEGIN RETURN QUERY ${STALE_MONTHS}; END $$;
    CREATE OR REPLACE FUNCTION engagement_rollup_stale_days() RETURNS TABLE (group_jid varchar(255), day date)
    LANGUAGE plpgsql STABLE ROWS 10 AS $$
    BEGIN
      RETURN QUERY SELECT DISTINCT m.group_jid, d::date
        FROM engagement_rollup_marks m, (SELECT wa_engagement_time_zone() AS tz) z,
             generate_series((m.from_at AT TIME ZONE z.tz)::date, (m.to_at AT TIME ZONE z.tz)::date, interval '1 day') d
       WHERE m.group_jid IS NOT NULL;
    END $$;

    -- The chat-export rows every member-day and hour view adds, in functions: planned once per session, where the
    -- coverage views behind them took about 100 ms to plan in every query that read a member-day view.
    CREATE FUNCTION engagement_export_member_days()
      RETURNS TABLE (group_jid varchar(255), participant_key varchar(255), day date, messages integer, replies integer,
                     reactions_given integer, poll_votes integer)
    LANGUAGE plpgsql STABLE ROWS 10 AS $$ BEGIN RETURN QUERY ${EXPORT_MEMBER_DAYS}; END $$;
    CREATE FUNCTION engagement_export_hours()
      RETURNS TABLE (group_jid varchar(255), day date, hour integer, messages integer)
    LANGUAGE plpgsql STABLE ROWS 10 AS $$ BEGIN RETURN QUERY ${EXPORT_HOURS}; END $$;
    ${DAY_VIEWS('SELECT * FROM engagement_export_member_days()', 'SELECT * FROM engagement_export_hours()')}

    ${RECOUNT(
      'engagement_rollup_recount_member_months',
      MEMBER_MONTH_COLUMNS,
      MEMBER_MONTHS('SELECT * FROM engagement_rollup_recount_member_days()'),
      MEMBER_MONTHS(
        `${TABLE_DAYS_OF_STALE_MONTHS('engagement_rollup_member_days')} UNION ALL SELECT * FROM engagement_rollup_recount_member_days()`
      )
    )}
    ${RECOUNT(
      'engagement_rollup_recount_group_days',
      GROUP_DAY_COLUMNS,
      GROUP_DAYS('SELECT * FROM engagement_rollup_recount_member_days()'),
      GROUP_DAYS('SELECT * FROM engagement_rollup_recount_member_days()')
    )}
    ${RECOUNT(
      'engagement_rollup_recount_hour_months',
      HOUR_MONTH_COLUMNS,
      HOUR_MONTHS('SELECT * FROM engagement_rollup_recount_hours()'),
      HOUR_MONTHS(
        `${TABLE_DAYS_OF_STALE_MONTHS('engagement_rollup_hours')} UNION ALL SELECT * FROM engagement_rollup_recount_hours()`
      )
    )}

    CREATE VIEW engagement_member_month_parts AS
      ${FRESH('engagement_rollup_member_months', 'month')}
      UNION ALL SELECT * FROM engagement_rollup_recount_member_months()
      UNION ALL ${MEMBER_MONTHS('SELECT * FROM engagement_export_member_days()')};
    CREATE VIEW engagement_member_months AS
      SELECT group_jid, participant_key, month, bit_or(days)::int AS days, sum(messages)::int AS messages,
             sum(replies)::int AS replies, sum(reactions_given)::int AS reactions_given, sum(poll_votes)::int AS poll_votes
        FROM engagement_member_month_parts GROUP BY 1, 2, 3;

    CREATE VIEW engagement_group_day_parts AS
      ${FRESH('engagement_rollup_group_days', 'day')}
      UNION ALL SELECT * FROM engagement_rollup_recount_group_days()
      UNION ALL ${GROUP_DAYS('SELECT * FROM engagement_export_member_days()')};
    CREATE VIEW engagement_group_day_totals AS
      SELECT group_jid, day, sum(messages)::int AS messages, sum(replies)::int AS replies,
             sum(reactions_given)::int AS reactions_given, sum(poll_votes)::int AS poll_votes
        FROM engagement_group_day_parts GROUP BY 1, 2;

    CREATE VIEW engagement_hour_month_parts AS
      ${FRESH('engagement_rollup_hour_months', 'month')}
      UNION ALL SELECT * FROM engagement_rollup_recount_hour_months()
      UNION ALL ${HOUR_MONTHS('SELECT * FROM engagement_export_hours()')};
    CREATE VIEW engagement_hour_months AS
      SELECT group_jid, month, weekday, hour, bit_or(days)::int AS days, sum(messages)::int AS messages
        FROM engagement_hour_month_parts GROUP BY 1, 2, 3, 4;

    -- Counted once here from the day-level tables as they are: their rows of days a visible mark names are
    -- recounted by the views and the next catch-up, and so are the months and days built from them.
    INSERT INTO engagement_rollup_member_months ${MEMBER_MONTHS('SELECT * FROM engagement_rollup_member_days')};
    INSERT INTO engagement_rollup_group_days ${GROUP_DAYS('SELECT * FROM engagement_rollup_member_days')};
    INSERT INTO engagement_rollup_hour_months ${HOUR_MONTHS('SELECT * FROM engagement_rollup_hours')};
    -- The day-level tables the catch-up recounts on their stale days, by name (a later table adds its row).
    CREATE TABLE engagement_rollup_day_tables (name text PRIMARY KEY);
    INSERT INTO engagement_rollup_day_tables VALUES ('member_days'), ('hours'), ('first_messages');
    ${CATCH_UP}
  `);
}

/** The catch-up of migration `1765900000000` again; the views, functions and tables go. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ${PREVIOUS_CATCH_UP}
    ${DAY_VIEWS(EXPORT_MEMBER_DAYS, EXPORT_HOURS)}
    CREATE OR REPLACE FUNCTION engagement_rollup_stale_days() RETURNS TABLE (group_jid varchar(255), day date)
    LANGUAGE sql STABLE ROWS 1000 AS $$
      SELECT DISTINCT m.group_jid, d::date
        FROM engagement_rollup_marks m, (SELECT wa_engagement_time_zone() AS tz) z,
             generate_series((m.from_at AT TIME ZONE z.tz)::date, (m.to_at AT TIME ZONE z.tz)::date, interval '1 day') d
       WHERE m.group_jid IS NOT NULL
    $$;
    DROP VIEW engagement_hour_months, engagement_hour_month_parts, engagement_group_day_totals,
      engagement_group_day_parts, engagement_member_months, engagement_member_month_parts;
    DROP FUNCTION engagement_export_hours(), engagement_export_member_days();
    DROP FUNCTION engagement_rollup_recount_hour_months(), engagement_rollup_recount_group_days(),
      engagement_rollup_recount_member_months(), engagement_rollup_stale_months(),
      engagement_month_day_mask(date, date, date);
    DROP INDEX engagement_rollup_member_days_key_index;
    DROP TABLE engagement_rollup_hour_months, engagement_rollup_group_days, engagement_rollup_member_months,
      engagement_rollup_day_tables;
  `);
}
