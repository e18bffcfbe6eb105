import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Unobserved periods per account, combined per group (ADR 0019 "Coverage per account", ADR 0016). With two linked
 * accounts feeding one lake, the stored copy of a stub carries the `account_jid` of whichever collector delivered
 * it first, so marking "the account's own facts" by the delivery (`is_account`) let delivery order decide whether a
 * removal was an account's time out of the group or a member's leave. The rule now reads the lake's set of accounts:
 *
 * - `whatsapp_account_jids (account_jid, jid)`: every JID of every linked account the raw rows name — the
 *   `account_jid`/`account_lid` a delivery carries and the account of each coverage beat (whose `account_lid` the
 *   collector now sends too), and the LID that owns an account's phone JID (`whatsapp_phone_owners`, for lakes whose
 *   collectors never sent a LID). Each collector's beats are rows of their own, so the set does not depend on which
 *   copy of a shared event was stored first.
 * - `whatsapp_account_membership_facts`: the membership facts naming one of those JIDs, with the account they are
 *   about; plus the facts marked `is_account` by their delivery that name no known JID (a lake written before
 *   beats carried a LID; a leave stub the account sent itself, `key.fromMe`): the delivering account, or the
 *   unnamed account `''` when the delivery named none.
 * - `whatsapp_account_unobserved_periods (account_jid, group_jid, started_at, ended_at)`: the fold of
 *   `lake/projections/unobserved-periods.ts` in SQL, per account and group: facts in the order of ADR 0007 (hints
 *   before timed facts, then time, then `event_id`), runs of equal presence starting at their earliest time, each
 *   absent run a period up to the next run's start (`ended_at` null: still out), unless that start is no later (a
 *   hint ranked before a timed fact can be later in time: no span).
 * - `whatsapp_group_unobserved_periods (group_jid, started_at, ended_at)`: now a view, the time in which every
 *   account the lake knows in the group (by a membership fact, a snapshot listing it, or a session opening with the
 *   group among its groups) was out. It replaces the
 *   table that a projection rewrote per group; `whatsapp_groups.unobserved_since` (its open period) goes with it.
 * - `whatsapp_coverage` subtracts each account's own periods, not any account's.
 * - `engagement_membership_changes` leaves out every fact about any linked account, whichever copy was stored.
 *
 * Views only: rows already stored read the new way at once; no `wa-lake rebuild` needed.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE INDEX whatsapp_event_logs_account_index ON whatsapp_event_logs (account_jid, account_lid)
      WHERE account_jid IS NOT NULL;

    CREATE VIEW whatsapp_account_jids AS
      WITH declared AS (
        SELECT pairs.account_jid, j.jid
          FROM (SELECT DISTINCT account_jid, account_lid FROM whatsapp_event_logs WHERE account_jid IS NOT NULL
                UNION
                SELECT DISTINCT payload->>'account_jid', payload->>'account_lid' FROM whatsapp_event_logs
                 WHERE type IN ('collector.session', 'collector.heartbeat') AND payload ? 'account_jid') pairs
         CROSS JOIN LATERAL (VALUES (pairs.account_jid), (pairs.account_lid)) AS j (jid)
         WHERE pairs.account_jid IS NOT NULL AND j.jid IS NOT NULL)
      SELECT account_jid, jid FROM declared
      UNION
      SELECT d.account_jid, o.lid FROM declared d JOIN whatsapp_phone_owners o ON o.phone_jid = d.jid;

    CREATE VIEW whatsapp_account_membership_facts AS
      SELECT a.account_jid, f.group_jid, f.participant_id, f.event_id, f.at, f.is_present, f.is_timed
        FROM whatsapp_account_jids a
        JOIN whatsapp_membership_facts f ON f.participant_id = a.jid
      UNION
      SELECT COALESCE(e.account_jid, ''), f.group_jid, f.participant_id, f.event_id, f.at, f.is_present, f.is_timed
        FROM whatsapp_membership_facts f
        JOIN whatsapp_event_logs e ON e.event_id = f.event_id
       WHERE f.is_account
         AND NOT EXISTS (SELECT 1 FROM whatsapp_account_jids a WHERE a.jid = f.participant_id);

    CREATE VIEW whatsapp_account_unobserved_periods AS
      WITH ordered AS (
        SELECT account_jid, group_jid, at, is_present,
               lag(is_present) OVER w IS DISTINCT FROM is_present AS starts_run,
               row_number() OVER w AS position
          FROM whatsapp_account_membership_facts
        WINDOW w AS (PARTITION BY account_jid, group_jid ORDER BY is_timed, at, event_id, participant_id)),
      numbered AS (
        SELECT *, count(*) FILTER (WHERE starts_run)
                    OVER (PARTITION BY account_jid, group_jid ORDER BY position ROWS UNBOUNDED PRECEDING) AS run
          FROM ordered),
      runs AS (
        SELECT account_jid, group_jid, run, bool_and(is_present) AS is_present, min(at) AS started_at
          FROM numbered GROUP BY account_jid, group_jid, run),
      spans AS (
        SELECT *, lead(started_at) OVER (PARTITION BY account_jid, group_jid ORDER BY run) AS ended_at FROM runs)
      SELECT account_jid, group_jid, started_at, ended_at FROM spans
       WHERE NOT is_present AND (ended_at IS NULL OR ended_at > started_at);

    CREATE OR REPLACE VIEW whatsapp_coverage AS
      WITH steps AS (
        SELECT account_jid, at, lead(at) OVER w AS next_at, state, interval_ms, groups
          FROM whatsapp_collector_beats
        WINDOW w AS (PARTITION BY account_jid ORDER BY at, event_id)),
      segments AS (
        SELECT s.account_jid, g.group_jid, tstzrange(s.at, s.next_at, '[]') AS period
          FROM steps s
         CROSS JOIN LATERAL jsonb_array_elements_text(
                CASE WHEN jsonb_typeof(s.groups) = 'array' THEN s.groups ELSE '[]'::jsonb END) AS g(group_jid)
         WHERE s.state = 'open' AND s.next_at IS NOT NULL
           AND s.next_at - s.at <= make_interval(secs => 2 * s.interval_ms / 1000.0)),
      observed AS (
        SELECT account_jid, group_jid, range_agg(period) AS periods FROM segments GROUP BY account_jid, group_jid),
      removed AS (
        SELECT account_jid, group_jid,
               range_agg(tstzrange(started_at, ended_at, '[)')) AS periods
          FROM whatsapp_account_unobserved_periods GROUP BY account_jid, group_jid)
      SELECT o.account_jid, o.group_jid, lower(p) AS started_at, upper(p) AS ended_at
        FROM observed o
        LEFT JOIN removed r ON r.account_jid = o.account_jid AND r.group_jid = o.group_jid
       CROSS JOIN LATERAL unnest(o.periods - COALESCE(r.periods, '{}'::tstzmultirange)) AS p
       WHERE NOT isempty(p);

    DROP TABLE whatsapp_group_unobserved_periods;
    ALTER TABLE whatsapp_groups DROP COLUMN unobserved_since;

    CREATE VIEW whatsapp_group_unobserved_periods AS
      WITH members AS (
        SELECT account_jid, group_jid FROM whatsapp_account_membership_facts
        UNION
        SELECT a.account_jid, s.group_jid FROM whatsapp_account_jids a
          JOIN whatsapp_group_snapshots s ON s.members ? a.jid
        UNION
        SELECT e.payload->>'account_jid', g.group_jid FROM whatsapp_event_logs e
         CROSS JOIN LATERAL jsonb_array_elements_text(
                CASE WHEN jsonb_typeof(e.payload->'groups') = 'array' THEN e.payload->'groups' ELSE '[]'::jsonb END)
                AS g (group_jid)
         WHERE e.type = 'collector.session' AND e.payload->>'state' = 'open' AND e.payload ? 'account_jid'),
      outs AS (
        SELECT account_jid, group_jid,
               range_agg(tstzrange(started_at, ended_at, '[)')) AS periods
          FROM whatsapp_account_unobserved_periods GROUP BY account_jid, group_jid),
      combined AS (
        SELECT m.group_jid, range_intersect_agg(COALESCE(o.periods, '{}'::tstzmultirange)) AS periods
          FROM members m
          LEFT JOIN outs o ON o.account_jid = m.account_jid AND o.group_jid = m.group_jid
         GROUP BY m.group_jid)
      SELECT c.group_jid, lower(p) AS started_at, upper(p) AS ended_at
        FROM combined c CROSS JOIN LATERAL unnest(c.periods) AS p;

    CREATE OR REPLACE VIEW engagement_membership_changes AS
      SELECT group_jid, participant_id, at, CASE WHEN is_present THEN 'join' ELSE 'leave' END AS change
        FROM (SELECT group_jid, participant_id, key, at, is_present,
                     lag(is_present) OVER (PARTITION BY group_jid, participant_id ORDER BY at, event_id) AS was_present
                FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.participant_id AS key,
                             f.at, f.event_id, f.is_present, f.is_timed,
                             bool_or(f.is_timed) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id))
                               AS has_timed
                        FROM whatsapp_membership_facts f
                        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id
                       WHERE NOT f.is_account
                         AND NOT EXISTS (SELECT 1 FROM whatsapp_account_jids a
                                          WHERE a.jid IN (f.participant_id, o.lid))) facts
               WHERE is_timed OR NOT has_timed) history
       WHERE COALESCE(was_present,
                      (SELECT s.members ? history.participant_id OR s.members ? history.key
                         FROM whatsapp_group_snapshots s
                        WHERE s.group_jid = history.group_jid AND s.at < history.at
                          AND (s.is_complete OR s.members ? history.participant_id OR s.members ? history.key)
                        ORDER BY s.at DESC, s.event_id DESC LIMIT 1))
             IS DISTINCT FROM is_present;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE OR REPLACE VIEW engagement_membership_changes AS
      SELECT group_jid, participant_id, at, CASE WHEN is_present THEN 'join' ELSE 'leave' END AS change
        FROM (SELECT group_jid, participant_id, key, at, is_present,
                     lag(is_present) OVER (PARTITION BY group_jid, participant_id ORDER BY at, event_id) AS was_present
                FROM (SELECT f.group_jid, COALESCE(o.lid, f.participant_id) AS participant_id, f.participant_id AS key,
                             f.at, f.event_id, f.is_present, f.is_timed,
                             bool_or(f.is_timed) OVER (PARTITION BY f.group_jid, COALESCE(o.lid, f.participant_id))
                               AS has_timed
                        FROM whatsapp_membership_facts f
                        LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id
                       WHERE NOT f.is_account) facts
               WHERE is_timed OR NOT has_timed) history
       WHERE COALESCE(was_present,
                      (SELECT s.members ? history.participant_id OR s.members ? history.key
                         FROM whatsapp_group_snapshots s
                        WHERE s.group_jid = history.group_jid AND s.at < history.at
                          AND (s.is_complete OR s.members ? history.participant_id OR s.members ? history.key)
                        ORDER BY s.at DESC, s.event_id DESC LIMIT 1))
             IS DISTINCT FROM is_present;
    DROP VIEW whatsapp_group_unobserved_periods;
    CREATE TABLE whatsapp_group_unobserved_periods (
      group_jid   varchar(255) NOT NULL,
      started_at  timestamptz NOT NULL,
      ended_at    timestamptz
    );
    CREATE INDEX whatsapp_group_unobserved_periods_group_index ON whatsapp_group_unobserved_periods (group_jid, started_at);
    ALTER TABLE whatsapp_groups ADD COLUMN unobserved_since timestamptz;
    CREATE OR REPLACE VIEW whatsapp_coverage AS
      WITH steps AS (
        SELECT account_jid, at, lead(at) OVER w AS next_at, state, interval_ms, groups
          FROM whatsapp_collector_beats
        WINDOW w AS (PARTITION BY account_jid ORDER BY at, event_id)),
      segments AS (
        SELECT s.account_jid, g.group_jid, tstzrange(s.at, s.next_at, '[]') AS period
          FROM steps s
         CROSS JOIN LATERAL jsonb_array_elements_text(
                CASE WHEN jsonb_typeof(s.groups) = 'array' THEN s.groups ELSE '[]'::jsonb END) AS g(group_jid)
         WHERE s.state = 'open' AND s.next_at IS NOT NULL
           AND s.next_at - s.at <= make_interval(secs => 2 * s.interval_ms / 1000.0)),
      observed AS (
        SELECT account_jid, group_jid, range_agg(period) AS periods FROM segments GROUP BY account_jid, group_jid),
      removed AS (
        SELECT group_jid, range_agg(tstzrange(started_at, COALESCE(ended_at, 'infinity'), '[)')) AS periods
          FROM whatsapp_group_unobserved_periods GROUP BY group_jid)
      SELECT o.account_jid, o.group_jid, lower(p) AS started_at, upper(p) AS ended_at
        FROM observed o
        LEFT JOIN removed r ON r.group_jid = o.group_jid
       CROSS JOIN LATERAL unnest(o.periods - COALESCE(r.periods, '{}'::tstzmultirange)) AS p
       WHERE NOT isempty(p);
    DROP VIEW whatsapp_account_unobserved_periods;
    DROP VIEW whatsapp_account_membership_facts;
    DROP VIEW whatsapp_account_jids;
    DROP INDEX whatsapp_event_logs_account_index;
  `);
}
