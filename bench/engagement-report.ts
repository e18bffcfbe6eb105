/**
 * Benchmark of the engagement report (ADR 0013): a lake of 1,000,000 messages, 5,000 members and
 * 50 groups (bulk-loaded with set-based SQL, `bench/engagement-bulk-load.ts`), then the whole
 * `wa-lake report --html` work — every query and the rendering of every chart — timed ROUNDS times.
 * Target: under 5 s. Run: `npx tsx bench/engagement-report.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderReportHtml } from '../cli/report/render-html.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { readEngagementReport } from '../lake/engagement/engagement-report-queries.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';
import { BENCH_COMMUNITY, bulkLoadCommunity } from './engagement-bulk-load.js';

const ROUNDS = 3;
const TARGET_MS = 5_000;

/**
 * Loads the community, then times the report ROUNDS times.
 *
 * @returns `{ load_ms, report_ms_best, report_ms_median, messages, html_bytes, load_average_1m_* }`.
 */
export async function runEngagementReportBench(): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-report-pg-'));
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_report_bench' });
  const pool = createPool(postgres.databaseUrl, { max: 2 });
  const results: Record<string, number> = { load_average_1m_start: loadavg()[0] ?? 0 };
  try {
    await runMigrations({ databaseUrl: postgres.databaseUrl });
    let started = performance.now();
    await bulkLoadCommunity(pool, BENCH_COMMUNITY);
    results['load_ms'] = Math.round(performance.now() - started);
    const timings: number[] = [];
    const htmlPath = join(dataDir, 'report.html');
    for (let round = 0; round < ROUNDS; round += 1) {
      started = performance.now();
      const report = await readEngagementReport(pool, {
        groupJid: null,
        from: null,
        to: null,
        lurkerDays: 30,
        topMembers: 15,
      });
      const html = renderReportHtml(report, new Date());
      await writeFile(htmlPath, html, 'utf8');
      timings.push(performance.now() - started);
      results['messages'] = report.totals.messages;
      results['active_members'] = report.totals.activeMembers;
      results['groups'] = report.totals.groups;
      results['html_bytes'] = html.length;
    }
    timings.sort((a, b) => a - b);
    results['report_ms_best'] = Math.round(timings[0] ?? 0);
    results['report_ms_median'] = Math.round(timings[Math.floor(timings.length / 2)] ?? 0);
    results['load_average_1m_end'] = loadavg()[0] ?? 0;
    return results;
  } finally {
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function printResults(results: Record<string, number>): void {
  const median = results['report_ms_median'] ?? 0;
  process.stdout.write(
    `engagement report benchmark: ${String(results['messages'])} messages, ${String(results['active_members'])} active members, ` +
      `${String(results['groups'])} groups (bulk load ${String(results['load_ms'])} ms)\n` +
      `  whole report (queries + charts + HTML, ${String(results['html_bytes'])} bytes): best ${String(results['report_ms_best'])} ms, ` +
      `median ${String(median)} ms of ${String(ROUNDS)}; target < ${String(TARGET_MS)} ms: ${median < TARGET_MS ? 'met' : 'NOT MET'}\n` +
      `  load average (1 min) ${(results['load_average_1m_start'] ?? 0).toFixed(1)} before, ` +
      `${(results['load_average_1m_end'] ?? 0).toFixed(1)} after, on a shared host with ${String(os.availableParallelism())} cores\n`
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printResults(await runEngagementReportBench());
}
