import type { MigrationBuilder } from 'node-pg-migrate';

// The messages the conversation rule numbers (migration `1765750000000`: `whatsapp_messages` with a sender).
const MESSAGES = `
  SELECT r.chat_jid AS group_jid, r.message_id, r.sent_at, r.reply_to_id FROM whatsapp_message_records_attributed r
   WHERE r.is_message AND r.sender_id IS NOT NULL`;

// A conversation start: no reply, and no message of its group in the 60 minutes before it (ties ordered by id).
const IS_START = `reply_to_id IS NULL AND (previous_at IS NULL OR sent_at - previous_at >= interval '60 minutes')`;

// Every start of the lake (`$1` the zone).
const ALL_STARTS = `
  SELECT group_jid, (sent_at AT TIME ZONE $1)::date AS day, message_id, sent_at
    FROM (SELECT m.*, lag(m.sent_at) OVER (PARTITION BY m.group_jid ORDER BY m.sent_at, m.message_id) AS previous_at
            FROM (${MESSAGES}) m) x
   WHERE ${IS_START}`;

// The starts of the days `engagement_rollup_conversation_days()` names, each read from the hour before it on.
const STARTS_OF_DAYS = `
  SELECT x.group_jid, x.day, x.message_id, x.sent_at
    FROM engagement_rollup_conversation_days() c
   CROSS JOIN LATERAL (
         SELECT m.group_jid, (m.sent_at AT TIME ZONE $1)::date AS day, m.message_id, m.sent_at, m.reply_to_id,
                lag(m.sent_at) OVER (ORDER BY m.sent_at, m.message_id) AS previous_at
           FROM (${MESSAGES}) m
          WHERE m.group_jid = c.group_jid AND m.sent_at >= (c.day::timestamp AT TIME ZONE $1) - interval '60 minutes'
            AND m.sent_at < ((c.day + 1)::timestamp AT TIME ZONE $1)
         OFFSET 0) x
   WHERE x.day = c.day AND ${IS_START}`;

const quoted = (sql: string): string => sql.replaceAll("'", "''");

const NAMES = `(SELECT DISTINCT ON (participant_id) participant_id, display_name FROM whatsapp_participant_display_names
                 ORDER BY participant_id)`;

// A message of the conversation rule, looked up for the row `outer` names (LATERAL): its LID-first sender and person.
const PERSON_OF = (where: string): string => `
  SELECT a.message_id, COALESCE(o.lid, a.sender_id) AS sender_id, a.sent_at,
         COALESCE(i.person_key, o.lid, a.sender_id) AS person_key
    FROM (SELECT a.* FROM whatsapp_message_records_attributed a
           WHERE a.is_message AND a.sender_id IS NOT NULL AND ${where} OFFSET 0) a
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = a.sender_id
    LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, a.sender_id)`;

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

// The catch-up of migration `1766000000000`, with each day-level table's rows deleted on the days its `stale_days`
// function names (the conversation starts name more days than marked), the few stale rows analyzed so the recounts
// probe the tables' indexes instead of merging every row of them, and every table analyzed after a full recount.
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

/**
 * Conversation starts kept as a table under the rollup marks (ADR 0031), and `engagement_first_responses` read from it
 * per start: a group's month of first responses reads that month's starts and, per start, the messages up to the
 * group's next start and the replies to it, instead of numbering every message of the group's history.
 *
 * - `engagement_rollup_conversation_starts`: per group and local day, the messages that start a conversation (the
 *   rule of migration `1765750000000`: no reply, 60 minutes of quiet before it in its group). Record facts only: no
 *   person. A change on a day can also make or unmake a start on the day of the group's next message, so the days it
 *   recounts (`engagement_rollup_conversation_days()`, named in a new `stale_days` column of
 *   `engagement_rollup_day_tables` the catch-up now reads) are each marked day and every day up to the group's next
 *   plain message after it.
 * - The catch-up analyzes its few stale rows before recounting from them (unanalyzed, PostgreSQL merged every row of
 *   the month tables with them), and every rollup table after a full recount (`wa-lake rebuild`, a new zone).
 * - `engagement_conversation_starts`: the table except those days, recounted at the same snapshot: exact at every read.
 * - `engagement_conversation_segments`: each start with the group's next start (`lead` over the group's starts).
 * - `engagement_first_response(…)`: a start's first response, from the messages up to the next start and the replies to
 *   it; people (phone owner, member link, LID succession) resolved when read.
 * - `engagement_first_responses`: the segments and their first responses; same columns, same rows.
 *
 * Irreversible (`down = false`): the view's definition before is the one migrations `1765750000000` and
 * `1765900000001` left, read from the catalog there.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_rollup_conversation_starts (
      group_jid varchar(255) NOT NULL, day date NOT NULL, message_id varchar(255) NOT NULL, sent_at timestamptz NOT NULL);
    CREATE INDEX engagement_rollup_conversation_starts_index ON engagement_rollup_conversation_starts (group_jid, day);

    CREATE FUNCTION engagement_rollup_conversation_days() RETURNS TABLE (group_jid varchar(255), day date)
    LANGUAGE plpgsql STABLE ROWS 10 AS $$
    DECLARE tz text := wa_engagement_time_zone();
    BEGIN
      RETURN QUERY
      SELECT DISTINCT s.group_jid, d::date
        FROM engagement_rollup_stale_days() s
       CROSS JOIN LATERAL (
             SELECT (r.sent_at AT TIME ZONE tz)::date AS next_day FROM whatsapp_message_records r
              WHERE r.chat_jid = s.group_jid AND r.sent_at >= ((s.day + 1)::timestamp AT TIME ZONE tz)
                AND r.record_rank <> 3 AND r.is_message AND r.sender_id IS NOT NULL
              ORDER BY r.sent_at LIMIT 1) n
       CROSS JOIN LATERAL generate_series(s.day, GREATEST(s.day, n.next_day), interval '1 day') d
      UNION
      SELECT s.group_jid, s.day FROM engagement_rollup_stale_days() s;
    END $$;

    CREATE FUNCTION engagement_rollup_recount_conversation_starts()
      RETURNS TABLE (group_jid varchar(255), day date, message_id varchar(255), sent_at timestamptz)
    LANGUAGE plpgsql STABLE ROWS 100 AS $$
    DECLARE tz text := wa_engagement_time_zone();
    BEGIN
      IF NOT engagement_rollup_is_current() THEN
        RETURN QUERY EXECUTE '${quoted(ALL_STARTS)}' USING tz;
        RETURN;
      END IF;
      RETURN QUERY EXECUTE '${quoted(STARTS_OF_DAYS)}' USING tz;
    END $$;

    CREATE VIEW engagement_conversation_starts AS
      SELECT c.group_jid, c.day, c.message_id, c.sent_at FROM engagement_rollup_conversation_starts c
       WHERE (SELECT engagement_rollup_is_current())
         AND NOT EXISTS (SELECT 1 FROM engagement_rollup_conversation_days() s
                          WHERE s.group_jid = c.group_jid AND s.day = c.day)
      UNION ALL
      SELECT * FROM engagement_rollup_recount_conversation_starts();

    ALTER TABLE engagement_rollup_day_tables ADD COLUMN stale_days text NOT NULL DEFAULT 'engagement_rollup_stale_days';
    ${CATCH_UP}
    INSERT INTO engagement_rollup_day_tables (name, stale_days)
      VALUES ('conversation_starts', 'engagement_rollup_conversation_days');
    -- Counted once here, at this transaction's snapshot: a change after it leaves a mark.
    DO $$ BEGIN
      EXECUTE 'INSERT INTO engagement_rollup_conversation_starts ${quoted(ALL_STARTS)}' USING wa_engagement_time_zone();
    END $$;

    -- Each start with the group's next start: its conversation runs up to that one.
    CREATE VIEW engagement_conversation_segments AS
      SELECT c.group_jid, c.day, c.message_id, c.sent_at, lead(c.sent_at) OVER w AS next_at,
             lead(c.message_id) OVER w AS next_id
        FROM engagement_conversation_starts c
      WINDOW w AS (PARTITION BY c.group_jid ORDER BY c.sent_at, c.message_id);

    -- The first response to a start (the rule of migration \`1765750000000\`): the earliest message of another person
    -- before the group's next start, or reply of another person to it, whichever comes first.
    CREATE FUNCTION engagement_first_response(p_group varchar, p_id varchar, p_at timestamptz, p_person varchar,
                                              p_next_at timestamptz, p_next_id varchar)
      RETURNS TABLE (message_id varchar(255), sender_id varchar(255), sent_at timestamptz)
    LANGUAGE sql STABLE AS $$
      SELECT c.message_id, c.sender_id, c.sent_at
        FROM ((SELECT g.message_id, g.sender_id, g.sent_at
                 FROM (${PERSON_OF(`a.chat_jid = p_group AND a.sent_at >= p_at AND (p_next_at IS NULL OR a.sent_at <= p_next_at)`)}) g
                WHERE (g.sent_at, g.message_id) > (p_at, p_id)
                  AND (p_next_at IS NULL OR (g.sent_at, g.message_id) < (p_next_at, p_next_id))
                  AND g.person_key <> p_person
                ORDER BY g.sent_at, g.message_id LIMIT 1)
              UNION ALL
              (SELECT y.message_id, y.sender_id, y.sent_at
                 FROM (${PERSON_OF('a.chat_jid = p_group AND a.reply_to_id = p_id')}) y
                WHERE (y.sent_at, y.message_id::text) > (p_at, p_id::text) AND y.person_key <> p_person
                ORDER BY y.sent_at, y.message_id LIMIT 1)) c
       ORDER BY c.sent_at, c.message_id LIMIT 1
    $$;

    CREATE OR REPLACE VIEW engagement_first_responses AS
    SELECT v.*, n.display_name
      FROM (SELECT s.group_jid::varchar(255) AS group_jid, s.message_id::varchar(255) AS message_id,
                   me.sender_id::varchar(255) AS sender_id, me.person_key::varchar(255) AS person_key,
                   s.sent_at AS started_at, s.day, r.message_id::varchar(255) AS first_response_id,
                   r.sender_id::varchar(255) AS first_responder_id, r.sent_at AS first_response_at,
                   extract(epoch FROM r.sent_at - s.sent_at)::bigint AS response_seconds
              FROM engagement_conversation_segments s
             CROSS JOIN LATERAL (${PERSON_OF('a.chat_jid = s.group_jid AND a.message_id = s.message_id')}) me
              LEFT JOIN LATERAL engagement_first_response(s.group_jid, s.message_id, s.sent_at, me.person_key,
                                                          s.next_at, s.next_id) r ON true) v
      LEFT JOIN ${NAMES} n ON n.participant_id = v.sender_id;
  `);
}

export const down = false;
