import type { MigrationBuilder } from 'node-pg-migrate';

// The captured part of the member-day rollup and of the hour counts: the rules of migrations `1765600000000` and
// `1765750000001` without the chat-export rows (those stay counted when read). `$BOUND` is where the recount of
// stale days narrows the scan ($1, $2: the instants; $3 is the zone).
const CAPTURED_MEMBER_DAYS = (bound: string, reactionsBound: string): string => `
  SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
         sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
    FROM (SELECT r.chat_jid AS group_jid, r.sender_id AS participant_key, (r.sent_at AT TIME ZONE $3)::date AS day,
                 r.is_message::int AS messages, (r.is_message AND r.reply_to_id IS NOT NULL)::int AS replies,
                 0 AS reactions_given, (NOT r.is_message)::int AS poll_votes
            FROM whatsapp_message_records_attributed r
           WHERE (r.is_message OR r.kind = 'poll_vote') AND r.sender_id IS NOT NULL${bound}
          UNION ALL
          SELECT r.chat_jid, r.reactor_id, (r.reacted_at AT TIME ZONE $3)::date, 0, 0, 1, 0
            FROM whatsapp_message_reactions r
           WHERE r.text <> ''${reactionsBound}) a
   GROUP BY a.group_jid, a.participant_key, a.day`;

const CAPTURED_HOURS = (bound: string): string => `
  SELECT r.chat_jid AS group_jid, (r.sent_at AT TIME ZONE $3)::date AS day,
         extract(hour FROM r.sent_at AT TIME ZONE $3)::int AS hour, count(*)::int AS messages
    FROM whatsapp_message_records_attributed r
   WHERE r.is_message AND r.sender_id IS NOT NULL${bound}
   GROUP BY 1, 2, 3`;

// A recount of stale days reads the rows between the earliest and latest marked instant (a day either side: a
// local day reaches at most 14 h beyond a UTC one), through the BRIN indexes, and keeps the marked (group, day)s.
const STALE = (column: string): string => `
             AND r.${column} >= $1 AND r.${column} < $2
             AND EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s
                          WHERE s.group_jid = r.chat_jid AND s.day = (r.${column} AT TIME ZONE $3)::date)`;

const quoted = (sql: string): string => sql.replaceAll("'", "''");

// The marks a statement's changed rows (`changed`) give, per table: one per group and UTC day touched.
const MARKS: Record<string, string> = {
  // A revoke stub counts under its target's sender, and only while the target is no message of its own
  // (whatsapp_message_records_attributed): a change of the target changes the stub's day too.
  whatsapp_message_records: `
    SELECT chat_jid, min(sent_at), max(sent_at) FROM changed GROUP BY chat_jid, date_trunc('day', sent_at AT TIME ZONE 'UTC')
    UNION ALL
    SELECT r.chat_jid, r.sent_at, r.sent_at FROM changed c
      JOIN whatsapp_message_revokes v ON v.chat_jid = c.chat_jid AND v.target_id = c.message_id
      JOIN whatsapp_message_records r ON r.chat_jid = v.chat_jid AND r.message_id = v.revoke_id`,
  whatsapp_message_revokes: `
    SELECT r.chat_jid, r.sent_at, r.sent_at FROM changed v
      JOIN whatsapp_message_records r ON r.chat_jid = v.chat_jid AND r.message_id = v.revoke_id`,
  whatsapp_message_reactions: `
    SELECT chat_jid, min(reacted_at), max(reacted_at) FROM changed
     GROUP BY chat_jid, date_trunc('day', reacted_at AT TIME ZONE 'UTC')`,
};

/**
 * The member-day rollup and the hour counts kept as tables, exact at every read (ADR 0025, "A year's volume"):
 * counted when read (ADR 0013) they cost about 2 s per million messages each, so a year of a busy community made
 * every report and BI query take tens of seconds.
 *
 * - `engagement_rollup_member_days`, `engagement_rollup_hours`: the captured part of `engagement_member_day_totals`
 *   and `engagement_activity_hours` (messages, poll votes, reactions; not chat-export rows, which stay counted when
 *   read), counted in the zone `engagement_rollup_state.time_zone`.
 * - `engagement_rollup_marks`: every statement that inserts, updates or deletes message records, revokes or
 *   reactions appends, in the same transaction, one row per group and UTC day it touched (earliest and latest
 *   instant); a TRUNCATE appends a row with no group (everything). Statement-level triggers with transition
 *   tables: a few rows per ingest statement, not one per message.
 * - `engagement_member_day_totals` and `engagement_activity_hours` read the tables except the marked (group, local
 *   day)s, which they recount from the read model at the same snapshot; when the zone changed or a TRUNCATE mark
 *   exists they recount everything. So every read equals a recount by construction, at any moment.
 * - `engagement_rollup_catch_up()` (run by the report and the dashboard before reading, in a repeatable-read
 *   transaction) recounts the marked days into the tables and deletes the marks it saw; marks committed meanwhile
 *   stay for the next one. The stale part a read recounts is what arrived since the last catch-up.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_rollup_member_days (
      group_jid varchar(255) NOT NULL, participant_key varchar(255) NOT NULL, day date NOT NULL,
      messages integer NOT NULL, replies integer NOT NULL, reactions_given integer NOT NULL, poll_votes integer NOT NULL);
    -- No unique key: the catch-up deletes and inserts a day's rows in one statement.
    CREATE INDEX engagement_rollup_member_days_index ON engagement_rollup_member_days (group_jid, day);
    CREATE INDEX engagement_rollup_member_days_day_index ON engagement_rollup_member_days (day);
    CREATE TABLE engagement_rollup_hours (
      group_jid varchar(255) NOT NULL, day date NOT NULL, hour integer NOT NULL, messages integer NOT NULL);
    CREATE INDEX engagement_rollup_hours_index ON engagement_rollup_hours (group_jid, day);
    CREATE INDEX engagement_rollup_hours_day_index ON engagement_rollup_hours (day);
    CREATE TABLE engagement_rollup_state (
      is_single boolean PRIMARY KEY DEFAULT true CHECK (is_single), time_zone text);
    INSERT INTO engagement_rollup_state (time_zone) VALUES (NULL);
    CREATE TABLE engagement_rollup_marks (group_jid varchar(255), from_at timestamptz, to_at timestamptz);

    CREATE INDEX whatsapp_message_records_sent_at_brin ON whatsapp_message_records USING brin (sent_at);
    CREATE INDEX whatsapp_message_reactions_reacted_at_brin ON whatsapp_message_reactions USING brin (reacted_at);

    CREATE FUNCTION engagement_rollup_mark_everything() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO engagement_rollup_marks (group_jid, from_at, to_at) VALUES (NULL, NULL, NULL);
      RETURN NULL;
    END $$;
  `);
  for (const [table, marks] of Object.entries(MARKS)) {
    // One function per event (a transition table's name is fixed in its body) and one statement per firing; an
    // UPDATE marks both the old and the new rows (a time or a sender may change).
    for (const [event, rows] of [
      ['insert', 'SELECT * FROM new_rows'],
      ['update', 'SELECT * FROM old_rows UNION ALL SELECT * FROM new_rows'],
      ['delete', 'SELECT * FROM old_rows'],
    ] as const) {
      const referencing = {
        insert: 'NEW TABLE AS new_rows',
        update: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
        delete: 'OLD TABLE AS old_rows',
      }[event];
      pgm.sql(`
        CREATE FUNCTION ${table}_rollup_${event}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO engagement_rollup_marks (group_jid, from_at, to_at)
          WITH changed AS (${rows}) ${marks};
          RETURN NULL;
        END $$;
        CREATE TRIGGER ${table}_rollup_${event} AFTER ${event.toUpperCase()} ON ${table}
          REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${table}_rollup_${event}();
      `);
    }
    pgm.sql(`
      CREATE TRIGGER ${table}_rollup_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollup_mark_everything();
    `);
  }
  pgm.sql(`
    -- The tables hold the current zone's counts and no TRUNCATE happened since they were counted.
    CREATE FUNCTION engagement_rollup_is_current() RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT s.time_zone IS NOT DISTINCT FROM wa_engagement_time_zone()
             AND NOT EXISTS (SELECT 1 FROM engagement_rollup_marks WHERE group_jid IS NULL)
        FROM engagement_rollup_state s
    $$;

    -- The (group, local day)s a mark visible now names: their rows in the tables may be stale.
    CREATE FUNCTION engagement_rollup_stale_days() RETURNS TABLE (group_jid varchar(255), day date)
    LANGUAGE sql STABLE AS $$
      SELECT DISTINCT m.group_jid, d::date
        FROM engagement_rollup_marks m, (SELECT wa_engagement_time_zone() AS tz) z,
             generate_series((m.from_at AT TIME ZONE z.tz)::date, (m.to_at AT TIME ZONE z.tz)::date, interval '1 day') d
       WHERE m.group_jid IS NOT NULL
    $$;

    -- The rows of the stale days, recounted from the read model; every row when the tables are not current.
    CREATE FUNCTION engagement_rollup_recount_member_days()
      RETURNS TABLE (group_jid varchar(255), participant_key varchar(255), day date, messages integer,
                     replies integer, reactions_given integer, poll_votes integer)
    LANGUAGE plpgsql STABLE AS $$
    DECLARE tz text := wa_engagement_time_zone(); lo timestamptz; hi timestamptz;
    BEGIN
      IF NOT engagement_rollup_is_current() THEN
        RETURN QUERY EXECUTE '${quoted(CAPTURED_MEMBER_DAYS('', ''))}' USING lo, hi, tz;
        RETURN;
      END IF;
      SELECT min(m.from_at) - interval '1 day', max(m.to_at) + interval '1 day' INTO lo, hi
        FROM engagement_rollup_marks m WHERE m.group_jid IS NOT NULL;
      IF lo IS NULL THEN RETURN; END IF;
      RETURN QUERY EXECUTE '${quoted(CAPTURED_MEMBER_DAYS(STALE('sent_at'), STALE('reacted_at')))}' USING lo, hi, tz;
    END $$;

    CREATE FUNCTION engagement_rollup_recount_hours()
      RETURNS TABLE (group_jid varchar(255), day date, hour integer, messages integer)
    LANGUAGE plpgsql STABLE AS $$
    DECLARE tz text := wa_engagement_time_zone(); lo timestamptz; hi timestamptz;
    BEGIN
      IF NOT engagement_rollup_is_current() THEN
        RETURN QUERY EXECUTE '${quoted(CAPTURED_HOURS(''))}' USING lo, hi, tz;
        RETURN;
      END IF;
      SELECT min(m.from_at) - interval '1 day', max(m.to_at) + interval '1 day' INTO lo, hi
        FROM engagement_rollup_marks m WHERE m.group_jid IS NOT NULL;
      IF lo IS NULL THEN RETURN; END IF;
      RETURN QUERY EXECUTE '${quoted(CAPTURED_HOURS(STALE('sent_at')))}' USING lo, hi, tz;
    END $$;

    -- Brings the tables up to date with what this transaction sees; run it in a repeatable-read transaction, so
    -- the marks it deletes are exactly those its recount includes. Returns the marks it folded, or -1 when
    -- another catch-up holds the lock (the views stay exact without it).
    CREATE FUNCTION engagement_rollup_catch_up() RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE folded integer;
    BEGIN
      IF current_setting('transaction_isolation') = 'read committed' THEN
        RAISE EXCEPTION 'engagement_rollup_catch_up() needs a repeatable-read transaction';
      END IF;
      IF NOT pg_try_advisory_xact_lock(hashtext('engagement_rollup_catch_up')) THEN RETURN -1; END IF;
      IF NOT engagement_rollup_is_current() THEN
        DELETE FROM engagement_rollup_member_days;
        DELETE FROM engagement_rollup_hours;
      ELSE
        DELETE FROM engagement_rollup_member_days c USING engagement_rollup_stale_days() s
         WHERE c.group_jid = s.group_jid AND c.day = s.day;
        DELETE FROM engagement_rollup_hours c USING engagement_rollup_stale_days() s
         WHERE c.group_jid = s.group_jid AND c.day = s.day;
      END IF;
      INSERT INTO engagement_rollup_member_days SELECT * FROM engagement_rollup_recount_member_days();
      INSERT INTO engagement_rollup_hours SELECT * FROM engagement_rollup_recount_hours();
      UPDATE engagement_rollup_state SET time_zone = wa_engagement_time_zone();
      DELETE FROM engagement_rollup_marks;
      GET DIAGNOSTICS folded = ROW_COUNT;
      RETURN folded;
    EXCEPTION WHEN serialization_failure THEN
      -- Another catch-up committed after this transaction's snapshot: it folded these marks already.
      RETURN -1;
    END $$;

    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT a.group_jid::varchar(255) AS group_jid, a.participant_key::varchar(255) AS participant_key, a.day,
             sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
             sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
        FROM (SELECT c.group_jid, c.participant_key, c.day, c.messages, c.replies, c.reactions_given, c.poll_votes
                FROM engagement_rollup_member_days c
               WHERE (SELECT engagement_rollup_is_current())
                 AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s
                                  WHERE s.group_jid = c.group_jid AND s.day = c.day)
              UNION ALL
              SELECT * FROM engagement_rollup_recount_member_days()
              UNION ALL
              SELECT m.group_jid, m.participant_key, m.day, 1, 0, 0, 0
                FROM whatsapp_export_messages m
                JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted) a
       GROUP BY a.group_jid, a.participant_key, a.day;

    CREATE OR REPLACE VIEW engagement_activity_hours AS
      WITH zone AS (SELECT wa_engagement_time_zone() AS tz),
      counted AS (
        SELECT c.group_jid, c.day, c.hour, c.messages
          FROM engagement_rollup_hours c
         WHERE (SELECT engagement_rollup_is_current())
           AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s WHERE s.group_jid = c.group_jid AND s.day = c.day)
        UNION ALL
        SELECT * FROM engagement_rollup_recount_hours()
        UNION ALL
        SELECT m.group_jid, (m.sent_at AT TIME ZONE z.tz)::date, extract(hour FROM m.sent_at AT TIME ZONE z.tz)::int, 1
          FROM whatsapp_export_messages m
          JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted
         CROSS JOIN zone z)
      SELECT group_jid::varchar(255) AS group_jid, day, extract(isodow FROM day)::int AS weekday, hour, messages
        FROM (SELECT group_jid, day, hour, sum(messages)::int AS messages FROM counted GROUP BY 1, 2, 3) hours;
  `);
}

/** The views count when read again (migrations `1765600000000` and `1765750000001`); the tables and marks go. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_member_day_totals AS
      SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
             sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
        FROM (SELECT chat_jid AS group_jid, sender_id AS participant_key,
                     (sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day, is_message::int AS messages,
                     (is_message AND reply_to_id IS NOT NULL)::int AS replies, 0 AS reactions_given,
                     (NOT is_message)::int AS poll_votes
                FROM whatsapp_message_records_attributed
               WHERE (is_message OR kind = 'poll_vote') AND sender_id IS NOT NULL
              UNION ALL
              SELECT chat_jid, reactor_id, (reacted_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, 0, 0, 1, 0
                FROM whatsapp_message_reactions
               WHERE text <> ''
              UNION ALL
              SELECT m.group_jid, m.participant_key, m.day, 1, 0, 0, 0
                FROM whatsapp_export_messages m
                JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted) a
       GROUP BY a.group_jid, a.participant_key, a.day;

    CREATE OR REPLACE VIEW engagement_activity_hours AS
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
  `);
  for (const table of Object.keys(MARKS)) {
    pgm.sql(`DROP TRIGGER ${table}_rollup_truncate ON ${table};`);
    for (const event of ['insert', 'update', 'delete']) {
      pgm.sql(`DROP TRIGGER ${table}_rollup_${event} ON ${table}; DROP FUNCTION ${table}_rollup_${event}();`);
    }
  }
  pgm.sql(`
    DROP FUNCTION engagement_rollup_catch_up(), engagement_rollup_recount_hours(),
      engagement_rollup_recount_member_days(), engagement_rollup_stale_days(), engagement_rollup_is_current(),
      engagement_rollup_mark_everything();
    DROP INDEX whatsapp_message_reactions_reacted_at_brin, whatsapp_message_records_sent_at_brin;
    DROP TABLE engagement_rollup_marks, engagement_rollup_state, engagement_rollup_hours, engagement_rollup_member_days;
  `);
}
