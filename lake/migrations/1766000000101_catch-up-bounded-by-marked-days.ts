import type { MigrationBuilder } from 'node-pg-migrate';

// The captured member-days of migration `1765800000000` (its rule unchanged), with the reactions of the marked days
// read once by the marks' time range and kept by their (group, day): planned against the stale days' estimate of 10
// rows, the semi-join became a nested loop over the marked days, each a bitmap scan of every reaction of the group.
const CAPTURED_MEMBER_DAYS = `
  SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
         sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
    FROM (SELECT r.chat_jid AS group_jid, r.sender_id AS participant_key, (r.sent_at AT TIME ZONE $3)::date AS day,
                 r.is_message::int AS messages, (r.is_message AND r.reply_to_id IS NOT NULL)::int AS replies,
                 0 AS reactions_given, (NOT r.is_message)::int AS poll_votes
            FROM whatsapp_message_records_attributed r
           WHERE (r.is_message OR r.kind = 'poll_vote') AND r.sender_id IS NOT NULL
             AND r.sent_at >= $1 AND r.sent_at < $2
             AND EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s
                          WHERE s.group_jid = r.chat_jid AND s.day = (r.sent_at AT TIME ZONE $3)::date)
          UNION ALL
          SELECT r.chat_jid, r.reactor_id, (r.reacted_at AT TIME ZONE $3)::date, 0, 0, 1, 0
            FROM (SELECT r.chat_jid, r.reactor_id, r.reacted_at FROM whatsapp_message_reactions r
                   WHERE r.text <> '' AND r.reacted_at >= $1 AND r.reacted_at < $2 OFFSET 0) r
           WHERE (r.chat_jid, (r.reacted_at AT TIME ZONE $3)::date) IN (SELECT s.group_jid, s.day
                                                                           FROM engagement_rollup_stale_days() s)) a
   GROUP BY a.group_jid, a.participant_key, a.day`;

// Every captured member-day (the tables are not current): migration `1765800000000`'s rule without bounds.
const ALL_CAPTURED_MEMBER_DAYS = `
  SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
         sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
    FROM (SELECT r.chat_jid AS group_jid, r.sender_id AS participant_key, (r.sent_at AT TIME ZONE $3)::date AS day,
                 r.is_message::int AS messages, (r.is_message AND r.reply_to_id IS NOT NULL)::int AS replies,
                 0 AS reactions_given, (NOT r.is_message)::int AS poll_votes
            FROM whatsapp_message_records_attributed r
           WHERE (r.is_message OR r.kind = 'poll_vote') AND r.sender_id IS NOT NULL
          UNION ALL
          SELECT r.chat_jid, r.reactor_id, (r.reacted_at AT TIME ZONE $3)::date, 0, 0, 1, 0
            FROM whatsapp_message_reactions r
           WHERE r.text <> '') a
   GROUP BY a.group_jid, a.participant_key, a.day`;

const quoted = (sql: string): string => sql.replaceAll("'", "''");

// The month-level rows of migration `1766000000000`, for the catch-up below.
const DAY_BIT = (day: string): string => `(1 << (extract(day FROM ${day})::int - 1))`;
const MONTH_OF = (day: string): string => `date_trunc('month', ${day})::date`;
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

// The catch-up of migration `1766000000003`, with the month recounts reading each marked group-month's day rows
// through the (group_jid, day) indexes, one range per month (LATERAL … OFFSET 0), instead of a hash join that read
// every day row of the lake (2 M at 10,000,000 messages) to keep a month's.
const CATCH_UP = `
  CREATE OR REPLACE FUNCTION engagement_rollup_catch_up() RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE folded integer; day_table text; days_function text;
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
      FOR day_table IN SELECT name FROM engagement_rollup_day_tables LOOP
        EXECUTE format('ANALYZE %I', 'engagement_rollup_' || day_table);
      END LOOP;
      ANALYZE engagement_rollup_member_months;
      ANALYZE engagement_rollup_group_days;
      ANALYZE engagement_rollup_hour_months;
    ELSE
      CREATE TEMP TABLE engagement_stale_days ON COMMIT DROP AS SELECT * FROM engagement_rollup_stale_days();
      CREATE TEMP TABLE engagement_stale_months ON COMMIT DROP AS
        SELECT DISTINCT group_jid, ${MONTH_OF('day')} AS month FROM engagement_stale_days;
      ANALYZE engagement_stale_days;
      ANALYZE engagement_stale_months;
      FOR day_table, days_function IN SELECT name, stale_days FROM engagement_rollup_day_tables ORDER BY name LOOP
        EXECUTE format('DELETE FROM %I c USING %I() s WHERE c.group_jid = s.group_jid AND c.day = s.day',
                       'engagement_rollup_' || day_table, days_function);
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
         CROSS JOIN LATERAL (
               SELECT c.* FROM engagement_rollup_member_days c
                WHERE c.group_jid = m.group_jid AND c.day >= m.month AND c.day < (m.month + interval '1 month')::date
               OFFSET 0) c`)};
      INSERT INTO engagement_rollup_group_days ${GROUP_DAYS(`
        SELECT c.* FROM engagement_stale_days s
          JOIN engagement_rollup_member_days c ON c.group_jid = s.group_jid AND c.day = s.day`)};
      INSERT INTO engagement_rollup_hour_months ${HOUR_MONTHS(`
        SELECT c.* FROM engagement_stale_months m
         CROSS JOIN LATERAL (
               SELECT c.* FROM engagement_rollup_hours c
                WHERE c.group_jid = m.group_jid AND c.day >= m.month AND c.day < (m.month + interval '1 month')::date
               OFFSET 0) c`)};
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

/**
 * The catch-up after new messages bounded by the days they mark (ADR 0032): measured at 10,000,000 messages with
 * 400 marked group-days, two of its plans read history. The member-day recount reads the marked days' reactions once
 * by time range (`engagement_rollup_recount_member_days()`, same rule, same rows); the catch-up recounts each marked
 * group-month's member months and hour months from that month's day rows through the tables' (group_jid, day)
 * indexes (`engagement_rollup_catch_up()`, otherwise migration `1766000000003`'s).
 *
 * Irreversible (`down = false`), as migration `1766000000002`: the definitions before are those of migrations
 * `1765800000000` and `1766000000003`, which this one does not copy back.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE FUNCTION engagement_rollup_recount_member_days()
      RETURNS TABLE (group_jid varchar(255), participant_key varchar(255), day date, messages integer,
                     replies integer, reactions_given integer, poll_votes integer)
    LANGUAGE plpgsql STABLE AS $$
    DECLARE tz text := wa_engagement_time_zone(); lo timestamptz; hi timestamptz;
    BEGIN
      IF NOT engagement_rollup_is_current() THEN
        RETURN QUERY EXECUTE '${quoted(ALL_CAPTURED_MEMBER_DAYS)}' USING lo, hi, tz;
        RETURN;
      END IF;
      SELECT min(m.from_at) - interval '1 day', max(m.to_at) + interval '1 day' INTO lo, hi
        FROM engagement_rollup_marks m WHERE m.group_jid IS NOT NULL;
      IF lo IS NULL THEN RETURN; END IF;
      RETURN QUERY EXECUTE '${quoted(CAPTURED_MEMBER_DAYS)}' USING lo, hi, tz;
    END $$;
    ${CATCH_UP}
  `);
}

export const down = false;
