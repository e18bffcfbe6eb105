import type { MigrationBuilder } from 'node-pg-migrate';

// Each sender's earliest message per group and local day, from the captured messages (`$3` is the zone; `$BOUND`
// narrows a recount of stale days to the marked ones, $1 and $2 the instants). Ties on the instant go to the
// smallest message id, as the first-message rule of migration `1765750000001` breaks them.
const CAPTURED_FIRST_MESSAGES = (bound: string): string => `
  SELECT DISTINCT ON (r.chat_jid COLLATE "C", r.sender_id COLLATE "C", (r.sent_at AT TIME ZONE $3)::date)
         r.chat_jid AS group_jid, r.sender_id AS participant_key, (r.sent_at AT TIME ZONE $3)::date AS day,
         r.sent_at, r.message_id
    FROM whatsapp_message_records_attributed r
   WHERE r.is_message AND r.sender_id IS NOT NULL${bound}
   ORDER BY r.chat_jid COLLATE "C", r.sender_id COLLATE "C", (r.sent_at AT TIME ZONE $3)::date, r.sent_at, r.message_id`;

const STALE = `
             AND r.sent_at >= $1 AND r.sent_at < $2
             AND EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s
                          WHERE s.group_jid = r.chat_jid AND s.day = (r.sent_at AT TIME ZONE $3)::date)`;

const quoted = (sql: string): string => sql.replaceAll("'", "''");

// The catch-up of migration `1765800000000`, folding the first messages too.
const catchUp = (withFirstMessages: boolean): string => `
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
      ${withFirstMessages ? 'DELETE FROM engagement_rollup_first_messages;' : ''}
    ELSE
      DELETE FROM engagement_rollup_member_days c USING engagement_rollup_stale_days() s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;
      DELETE FROM engagement_rollup_hours c USING engagement_rollup_stale_days() s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;
      ${
        withFirstMessages
          ? `DELETE FROM engagement_rollup_first_messages c USING engagement_rollup_stale_days() s
       WHERE c.group_jid = s.group_jid AND c.day = s.day;`
          : ''
      }
    END IF;
    INSERT INTO engagement_rollup_member_days SELECT * FROM engagement_rollup_recount_member_days();
    INSERT INTO engagement_rollup_hours SELECT * FROM engagement_rollup_recount_hours();
    ${withFirstMessages ? 'INSERT INTO engagement_rollup_first_messages SELECT * FROM engagement_rollup_recount_first_messages();' : ''}
    UPDATE engagement_rollup_state SET time_zone = wa_engagement_time_zone();
    DELETE FROM engagement_rollup_marks;
    GET DIAGNOSTICS folded = ROW_COUNT;
    RETURN folded;
  EXCEPTION WHEN serialization_failure THEN
    -- Another catch-up committed after this transaction's snapshot: it folded these marks already.
    RETURN -1;
  END $$;`;

/**
 * Each sender's first message per group and local day kept as a table under the rollup's marks (ADR 0025, "A year's
 * volume", "Bounded reads"), and the indexes the report's newcomer funnel and the group-period views need.
 *
 * - `engagement_rollup_first_messages`: per group, raw sender (`sender_id` of `whatsapp_message_records_attributed`)
 *   and local day, the earliest message (instant, then smallest id). Caught up with the other rollup tables by
 *   `engagement_rollup_catch_up()`, from the same marks (a message record or revoke change marks its group-day).
 * - `engagement_first_message_days`: the table except the (group, day)s a visible mark names, plus those recounted
 *   from the read model in the same snapshot (everything, when the tables are not current): exact at every read.
 *   A sender's first message in a group is the earliest of its rows.
 * - `whatsapp_message_records (chat_jid, sent_at)`: a group's messages of a period without reading every group's.
 * - `whatsapp_message_records (chat_jid, reply_to_id)` for replies: the replies to given messages at any time.
 * - `whatsapp_message_records (chat_jid, message_id) WHERE record_rank = 3`: the merged revoke stubs, which every
 *   read of `whatsapp_message_records_attributed` looks up; without it, a second pass over every record.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE engagement_rollup_first_messages (
      group_jid varchar(255) NOT NULL, participant_key varchar(255) NOT NULL, day date NOT NULL,
      sent_at timestamptz NOT NULL, message_id varchar(255) NOT NULL);
    CREATE INDEX engagement_rollup_first_messages_index
      ON engagement_rollup_first_messages (group_jid, participant_key, day);
    CREATE INDEX engagement_rollup_first_messages_day_index ON engagement_rollup_first_messages (group_jid, day);

    CREATE INDEX whatsapp_message_records_chat_sent_at_index ON whatsapp_message_records (chat_jid, sent_at);
    CREATE INDEX whatsapp_message_records_reply_index ON whatsapp_message_records (chat_jid, reply_to_id)
      WHERE reply_to_id IS NOT NULL;
    CREATE INDEX whatsapp_message_records_stub_index ON whatsapp_message_records (chat_jid, message_id)
      WHERE record_rank = 3;

    CREATE FUNCTION engagement_rollup_recount_first_messages()
      RETURNS TABLE (group_jid varchar(255), participant_key varchar(255), day date, sent_at timestamptz,
                     message_id varchar(255))
    LANGUAGE plpgsql STABLE AS $$
    DECLARE tz text := wa_engagement_time_zone(); lo timestamptz; hi timestamptz;
    BEGIN
      IF NOT engagement_rollup_is_current() THEN
        RETURN QUERY EXECUTE '${quoted(CAPTURED_FIRST_MESSAGES(''))}' USING lo, hi, tz;
        RETURN;
      END IF;
      SELECT min(m.from_at) - interval '1 day', max(m.to_at) + interval '1 day' INTO lo, hi
        FROM engagement_rollup_marks m WHERE m.group_jid IS NOT NULL;
      IF lo IS NULL THEN RETURN; END IF;
      RETURN QUERY EXECUTE '${quoted(CAPTURED_FIRST_MESSAGES(STALE))}' USING lo, hi, tz;
    END $$;

    CREATE VIEW engagement_first_message_days AS
      SELECT c.group_jid, c.participant_key, c.day, c.sent_at, c.message_id
        FROM engagement_rollup_first_messages c
       WHERE (SELECT engagement_rollup_is_current())
         AND NOT EXISTS (SELECT 1 FROM engagement_rollup_stale_days() s WHERE s.group_jid = c.group_jid AND s.day = c.day)
      UNION ALL
      SELECT * FROM engagement_rollup_recount_first_messages();

    -- Every day counted once here, at this transaction's snapshot: a change after it leaves a mark, as for the
    -- other tables, so the first catch-up after this migration does not count every day of every table again.
    DO $$ BEGIN
      EXECUTE 'INSERT INTO engagement_rollup_first_messages ${quoted(CAPTURED_FIRST_MESSAGES(''))}'
        USING NULL::timestamptz, NULL::timestamptz, wa_engagement_time_zone();
    END $$;
    ${catchUp(true)}
  `);
}

/** The table, view and indexes go; the catch-up folds the two tables of migration `1765800000000` again. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ${catchUp(false)}
    DROP VIEW engagement_first_message_days;
    DROP FUNCTION engagement_rollup_recount_first_messages();
    DROP TABLE engagement_rollup_first_messages;
    DROP INDEX whatsapp_message_records_stub_index, whatsapp_message_records_reply_index,
      whatsapp_message_records_chat_sent_at_index;
  `);
}
