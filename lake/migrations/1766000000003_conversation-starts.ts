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

/**
 * Conversation starts kept as a table under the rollup marks (ADR 0031), and `engagement_first_responses` read from it
 * per start: a group's month of first responses reads that month's starts and, per start, the messages up to the
 * group's next start and the replies to it, instead of numbering every message of the group's history.
 *
 * - `engagement_rollup_conversation_starts`: per group and local day, the messages that start a conversation (the
 *   rule of migration `1765750000000`: no reply, 60 minutes of quiet before it in its group). Record facts only: no
 *   person. A change on a day can also make or unmake a start on the day of the group's next message, so the days it
 *   recounts (`engagement_rollup_conversation_days()`, its row of `engagement_rollup_day_tables`) are each marked day
 *   and every day up to the group's next plain message after it.
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
