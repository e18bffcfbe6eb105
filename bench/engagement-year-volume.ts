/**
 * A year's volume (ADR 0025, "A year's volume"): bulk-loads a community into the read-model tables the ingest path
 * writes (`engagement-bulk-load.ts`, rows in time order, the rollup triggers firing), folds it into the rollup
 * tables once, then times, each beside the load average: the whole report (default range: all days) and the report
 * of the last 30 days; every dashboard page (overview, a group, a month, a member search, a member page); every
 * documented view for one group and one month; and, after a day of new messages written the same way, the report
 * that folds them first. Targets: report < 3 s, dashboard page < 1 s, view per group-month < 500 ms.
 *
 * `npm run bench:year` (1,000,000 messages, 2,000 members, 20 groups);
 * `npm run bench:year -- --messages 10000000 --members 20000 --groups 200`. A query slower than `--timeout-s`
 * (default 60) is cut by PostgreSQL's statement_timeout and printed as "> N s". `--data-dir DIR` keeps the lake;
 * `--reuse` with it skips the bulk load when the lake there already holds messages (migrations and the catch-up
 * still run first), so a change is measured on the same rows without loading them again. Each run adds its day of
 * new messages to a kept lake.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { buildDashboardApp } from '../cli/dashboard/dashboard-app.js';
import { renderReportHtml } from '../cli/report/render-html.js';
import { createRootLogger } from '../common/logger.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { readEngagementReport } from '../lake/engagement/engagement-report-queries.js';
import { KeptEngagementReports } from '../lake/engagement/kept-engagement-reports.js';
import { catchUpEngagementRollup } from '../lake/engagement/rollup-catch-up.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';
import { bulkLoadCommunity } from './engagement-bulk-load.js';

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    members: { type: 'string', default: '2000' },
    groups: { type: 'string', default: '20' },
    days: { type: 'string', default: '365' },
    'timeout-s': { type: 'string', default: '60' },
    'data-dir': { type: 'string' },
    reuse: { type: 'boolean', default: false },
  },
});
const size = {
  messages: Number(flags.messages),
  members: Number(flags.members),
  groups: Number(flags.groups),
  days: Number(flags.days),
};
const TIMEOUT_S = Number(flags['timeout-s']);
const TOKEN = 'bench-dashboard-token-0123456789';

// Each documented view and how one group and one month of it are selected (docs/engagement.md "Views").
const VIEWS: readonly [view: string, filter: string][] = [
  ['whatsapp_messages', 'chat_jid = $1 AND sent_at >= $2::date AND sent_at < $3::date + 1'],
  ['whatsapp_reactions', 'chat_jid = $1 AND reacted_at >= $2::date AND reacted_at < $3::date + 1'],
  ['engagement_member_day_totals', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_member_day_rows', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_member_activity_days', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_member_received_days', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_member_daily', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_membership_changes', 'group_jid = $1 AND at >= $2::date AND at < $3::date + 1'],
  ['engagement_group_daily', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_active_members', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_cohort_retention', 'group_jid = $1 AND cohort_week BETWEEN $2 AND $3'],
  ['engagement_first_responses', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_first_response_daily', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_reply_edges', 'group_jid = $1 AND sent_at >= $2::date AND sent_at < $3::date + 1'],
  ['engagement_reply_graph', 'group_jid = $1 AND last_at >= $2::date AND first_at < $3::date + 1'],
  ['engagement_unanswered_candidates', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_unanswered', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_lurkers', 'group_jid = $1 AND $2::date <= $3::date'],
  ['engagement_activity_hours', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_member_levels', 'group_jid = $1 AND month BETWEEN $2 AND $3'],
  ['engagement_level_transitions', 'group_jid = $1 AND month BETWEEN $2 AND $3'],
  ['engagement_level_monthly', 'group_jid = $1 AND month BETWEEN $2 AND $3'],
  ['engagement_newcomer_funnel', 'group_jid = $1 AND cohort_week BETWEEN $2 AND $3'],
];

// The bare reads a view cannot do without, for one group ($1), timed beside the views (ADR 0033).
const CEILINGS: readonly [label: string, sql: string][] = [
  [
    'engagement_reply_graph, every link of the group and each quoted message',
    `SELECT count(r.sender_id) FROM engagement_rollup_message_links l
       LEFT JOIN whatsapp_message_records r ON r.chat_jid = l.group_jid AND r.message_id = l.target_message_id
      WHERE l.group_jid = $1`,
  ],
];

const load = (): string => (loadavg()[0] ?? 0).toFixed(1);
const line = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

/** Milliseconds of `work`, or null when PostgreSQL cut it at the statement timeout. */
async function timed(work: () => Promise<unknown>): Promise<number | null> {
  const started = performance.now();
  try {
    await work();
    return Math.round(performance.now() - started);
  } catch (err) {
    if ((err as { code?: string }).code === '57014') return null;
    throw err;
  }
}

const verdict = (ms: number | null, targetMs: number): string =>
  ms === null
    ? `> ${String(TIMEOUT_S)} s (statement timeout), target < ${String(targetMs)} ms: NOT MET`
    : `${String(ms)} ms, target < ${String(targetMs)} ms: ${ms < targetMs ? 'met' : 'NOT MET'}`;

async function report(pool: pg.Pool, range: { from: string | null; to: string | null }): Promise<void> {
  const data = await readEngagementReport(pool, { groupJid: null, ...range, lurkerDays: 30, topMembers: 15 });
  renderReportHtml(data, new Date());
}

/** The dashboard's default limit (`DASHBOARD_REPORT_MAX_AGE_SECONDS`): how old a kept report may be (ADR 0034). */
const KEPT_MAX_AGE_MS = 300_000;
const WHOLE = { groupJid: null, from: null, to: null, lurkerDays: 30, topMembers: 15 } as const;

/** A whole report served by `kept`, rendered as `wa-lake report --max-age` renders it. */
async function keptReport(kept: KeptEngagementReports): Promise<boolean> {
  const read = await kept.read(WHOLE);
  renderReportHtml(read.report, new Date());
  return read.wasKept;
}

async function main(): Promise<void> {
  const dataDir = flags['data-dir'] ?? mkdtempSync(join(tmpdir(), 'wa-lake-bench-year-pg-'));
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_year_bench' });
  const loadPool = createPool(postgres.databaseUrl, { max: 2 });
  // Every measured read is cut at --timeout-s; the load and the first count are not.
  const pool = createPool(postgres.databaseUrl, { max: 4 });
  pool.on('connect', (client) => {
    void client.query(`SET statement_timeout = '${String(TIMEOUT_S)}s'`);
  });
  line(
    `engagement at a year's volume: ${String(size.messages)} messages, ${String(size.members)} members, ` +
      `${String(size.groups)} groups, ${String(size.days)} days; ${String(os.availableParallelism())} cores shared`
  );
  try {
    await runMigrations({ databaseUrl: postgres.databaseUrl });
    let started = performance.now();
    const loaded = flags.reuse ? await loadPool.query('SELECT 1 FROM whatsapp_message_records LIMIT 1') : null;
    if (loaded !== null && loaded.rowCount === 1) {
      line(`  bulk load skipped: --reuse and the lake in ${dataDir} holds messages`);
    } else {
      await bulkLoadCommunity(loadPool, size);
      line(`  bulk load ${String(Math.round(performance.now() - started))} ms (load ${load()})`);
    }
    started = performance.now();
    await catchUpEngagementRollup(loadPool);
    await loadPool.query('ANALYZE engagement_rollup_member_days; ANALYZE engagement_rollup_hours');
    line(`  first count into the rollup tables ${String(Math.round(performance.now() - started))} ms (load ${load()})`);
    const bounds = await pool.query<{ last: string; from: string; to: string; group: string; member: string }>(
      `SELECT to_char(max(day), 'YYYY-MM-DD') AS last, to_char(max(day) - 29, 'YYYY-MM-DD') AS from,
              to_char(date_trunc('month', max(day)) - interval '1 month', 'YYYY-MM-DD') AS month_from,
              (SELECT jid FROM whatsapp_groups ORDER BY jid LIMIT 1) AS group,
              (SELECT participant_key FROM engagement_rollup_member_days GROUP BY 1 ORDER BY sum(messages) DESC LIMIT 1)
                AS member
         FROM engagement_rollup_member_days`
    );
    const month = await pool.query<{ from: string; to: string }>(
      `SELECT to_char(m, 'YYYY-MM-DD') AS from, to_char(m + interval '1 month' - interval '1 day', 'YYYY-MM-DD') AS to
         FROM (SELECT date_trunc('month', max(day)) - interval '1 month' AS m FROM engagement_rollup_member_days) x`
    );
    const { last, from, group, member } = bounds.rows[0] ?? { last: '', from: '', group: '', member: '' };
    const monthRange = month.rows[0] ?? { from: '', to: '' };

    for (const [label, range] of [
      ['whole report (all days)', { from: null, to: null }],
      [`report of the last 30 days (${from} .. ${last})`, { from, to: last }],
    ] as const) {
      const ms = await timed(() => report(pool, range));
      line(`  ${label}: ${verdict(ms, 3_000)} (load ${load()})`);
    }

    // The ceiling of a read over all groups on this host, in the same run: one bare scan of the rows the whole report
    // cannot avoid reading (every member month, group day and membership fact, the hour months across groups).
    const ceiling = await timed(() =>
      pool.query(`SELECT (SELECT count(*) FROM engagement_rollup_member_months) + (SELECT count(*) FROM engagement_rollup_group_days)
                       + (SELECT count(*) FROM whatsapp_membership_facts) + (SELECT count(*) FROM engagement_rollup_all_hour_months)`)
    );
    line(`  ceiling: bare scan of the rows a report over all groups reads: ${String(ceiling)} ms (load ${load()})`);

    // Kept reports (ADR 0034): counted once and kept, then served while younger than the dashboard's limit.
    await pool.query('DELETE FROM engagement_kept_reports');
    const kept = new KeptEngagementReports(pool, KEPT_MAX_AGE_MS);
    const counting = await timed(() => keptReport(kept));
    line(`  whole report counted and kept (ADR 0034): ${String(counting)} ms (load ${load()})`);
    let served = false;
    const keptMs = await timed(async () => {
      served = await keptReport(kept);
    });
    line(`  whole report served kept (${served ? 'kept' : 'COUNTED'}): ${verdict(keptMs, 3_000)} (load ${load()})`);

    const app = buildDashboardApp({ pool, token: TOKEN, logger: createRootLogger({ level: 'silent' }) });
    const pages: [string, string][] = [
      ['overview', '/'],
      ['one group', `/?group=${encodeURIComponent(group)}`],
      ['one month', `/?from=${monthRange.from}&to=${monthRange.to}`],
      ['one group, one month', `/?group=${encodeURIComponent(group)}&from=${monthRange.from}&to=${monthRange.to}`],
      ['member search', `/members?member=${encodeURIComponent(member.slice(0, 8))}`],
      ['member page', `/members/${encodeURIComponent(member)}`],
    ];
    for (const [label, url] of pages) {
      let status = 0;
      const ms = await timed(async () => {
        const response = await app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } });
        status = response.statusCode;
        if (status >= 500) throw Object.assign(new Error(response.body.slice(0, 200)), { code: '57014' });
      });
      line(`  dashboard ${label} (${String(status)}): ${verdict(ms, 1_000)} (load ${load()})`);
    }
    await app.close();

    // The dashboard as it runs (`DASHBOARD_REPORT_MAX_AGE_SECONDS` 300): the overview counted as it starts, each
    // other page counted on its first ask and kept; timed on the next ask.
    const keptApp = buildDashboardApp({
      pool,
      token: TOKEN,
      logger: createRootLogger({ level: 'silent' }),
      reportMaxAgeMs: KEPT_MAX_AGE_MS,
    });
    await keptApp.ready();
    const ask = async (url: string): Promise<number> =>
      (await keptApp.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } })).statusCode;
    for (const [label, url] of pages.filter(([, url]) => url.startsWith('/?') || url === '/')) {
      const first = await timed(() => ask(url));
      let status = 0;
      const ms = await timed(async () => {
        status = await ask(url);
      });
      line(
        `  dashboard ${label}, kept (${String(status)}; first ask ${String(first)} ms): ${verdict(ms, 1_000)} (load ${load()})`
      );
    }
    await keptApp.close();

    line(`  views for group ${group}, ${monthRange.from} .. ${monthRange.to}:`);
    for (const [view, filter] of VIEWS) {
      const ms = await timed(() =>
        pool.query(`SELECT count(*) FROM ${view} WHERE ${filter}`, [group, monthRange.from, monthRange.to])
      );
      line(`    ${view.padEnd(34)} ${verdict(ms, 500)} (load ${load()})`);
    }
    // What a view must read at least, beside it: the reply graph's pairs are of all time, so a month of it reads
    // every reply and mention link of the group and each reply's quoted message.
    for (const [label, sql] of CEILINGS) {
      const ms = await timed(() => pool.query(sql, [group]));
      line(`    ceiling: ${label}: ${ms === null ? 'timeout' : `${String(ms)} ms`} (load ${load()})`);
    }

    // A day of new messages: the last day again, a day later, written as the ingest writes them (time order, the
    // triggers firing); the next report folds them first.
    const added = await loadPool.query(
      `INSERT INTO whatsapp_message_records
         (chat_jid, message_id, kind, is_message, sender_id, sent_at, reply_to_id, mention_count, record_rank,
          record_event_id)
       SELECT chat_jid, 'N' || message_id, kind, is_message, sender_id, sent_at + interval '1 day', reply_to_id,
              mention_count, record_rank, gen_random_uuid()
         FROM whatsapp_message_records
        WHERE sent_at > (SELECT max(sent_at) - interval '1 day' FROM whatsapp_message_records)
        ORDER BY sent_at`
    );
    const daily = added.rowCount ?? 0;
    const ms = await timed(() => report(pool, { from: null, to: null }));
    line(
      `  whole report after ${String(daily)} new messages (folds them first): ${verdict(ms, 3_000)} (load ${load()})`
    );
    // The same day through the kept report: served as kept (counted before the day, younger than the limit), then
    // the refresher's recount once the kept report is past half its limit, then served again with the day in it.
    const before = await timed(async () => {
      served = await keptReport(kept);
    });
    line(
      `  whole report after the day, served kept (${served ? 'kept' : 'COUNTED'}): ${verdict(before, 3_000)} (load ${load()})`
    );
    await pool.query(
      `UPDATE engagement_kept_reports SET as_of = as_of - make_interval(secs => $1::double precision / 2000)`,
      [KEPT_MAX_AGE_MS]
    );
    let recounted = 0;
    const refresh = await timed(async () => {
      recounted = await kept.refreshDue();
    });
    line(
      `  refresher's recount of ${String(recounted)} kept reports (background, every page asked within the hour): ` +
        `${String(refresh)} ms (load ${load()})`
    );
    const after = await timed(async () => {
      served = await keptReport(kept);
    });
    line(
      `  whole report with the day, served kept (${served ? 'kept' : 'COUNTED'}): ${verdict(after, 3_000)} (load ${load()})`
    );
  } finally {
    await pool.end();
    await loadPool.end();
    await postgres.stop();
    if (flags['data-dir'] === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
