import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Coverage (issue #29 item 2, ADR 0016): when the lake observed a group, derived from the collector's own
 * `collector.session` and `collector.heartbeat` events (stored like any event, so they survive the same faults).
 * - `whatsapp_collector_beats`: one row per beat (account, time, open or closed, interval, groups listed).
 * - `whatsapp_coverage`: per account and group, the observed periods: the time from an open beat to the next
 *   beat of the same account when that beat came within twice the interval and the open beat listed the
 *   group, merged, minus the group's `whatsapp_group_unobserved_periods` (account removed or left). Everything
 *   else is unobserved: collector down or crashed (beats stop), session closed, account not a member, and the
 *   time before the first beat.
 * - `whatsapp_backfilled_periods`: spans a history backfill filled (`collector.backfill` events, issue #29 item 3):
 *   `covered` from `since` to the message the backfill started before, `exhausted` from the oldest message
 *   WhatsApp gave (nothing older) to that message. An unanswered backfill fills nothing.
 * - `whatsapp_group_coverage`: per group, the union of every account's observed periods and the backfilled
 *   spans (two linked accounts cover each other, issue #29 item 4).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE INDEX whatsapp_event_logs_coverage_beats_index ON whatsapp_event_logs ((payload->>'account_jid'), occurred_at)
      WHERE type IN ('collector.session', 'collector.heartbeat');

    CREATE VIEW whatsapp_collector_beats AS
      SELECT event_id, payload->>'account_jid' AS account_jid, occurred_at AS at, payload->>'state' AS state,
             (payload->>'interval_ms')::bigint AS interval_ms, payload->'groups' AS groups, source
        FROM whatsapp_event_logs
       WHERE type IN ('collector.session', 'collector.heartbeat') AND payload ? 'account_jid'
         AND occurred_at IS NOT NULL AND jsonb_typeof(payload->'interval_ms') = 'number';

    CREATE VIEW whatsapp_coverage AS
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

    CREATE VIEW whatsapp_backfilled_periods AS
      SELECT chat_jid AS group_jid, payload->>'account_jid' AS account_jid, payload->>'state' AS state,
             to_timestamp((payload->>'from_ms')::bigint / 1000.0) AS started_at,
             to_timestamp((payload->>'to_ms')::bigint / 1000.0) AS ended_at
        FROM whatsapp_event_logs
       WHERE type = 'collector.backfill' AND chat_jid IS NOT NULL AND payload->>'state' IN ('covered', 'exhausted')
         AND jsonb_typeof(payload->'from_ms') = 'number' AND jsonb_typeof(payload->'to_ms') = 'number'
         AND (payload->>'from_ms')::bigint <= (payload->>'to_ms')::bigint;

    CREATE VIEW whatsapp_group_coverage AS
      SELECT group_jid, lower(p) AS started_at, upper(p) AS ended_at
        FROM (SELECT group_jid, range_agg(tstzrange(started_at, ended_at, '[]')) AS periods
                FROM (SELECT group_jid, started_at, ended_at FROM whatsapp_coverage
                      UNION ALL
                      SELECT group_jid, started_at, ended_at FROM whatsapp_backfilled_periods) spans
               GROUP BY group_jid) g
       CROSS JOIN LATERAL unnest(g.periods) AS p;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    DROP VIEW IF EXISTS whatsapp_group_coverage;
    DROP VIEW IF EXISTS whatsapp_backfilled_periods;
    DROP VIEW IF EXISTS whatsapp_coverage;
    DROP VIEW IF EXISTS whatsapp_collector_beats;
    DROP INDEX IF EXISTS whatsapp_event_logs_coverage_beats_index;
  `);
}
