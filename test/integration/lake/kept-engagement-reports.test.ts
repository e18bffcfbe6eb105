import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../../../cli/dashboard/dashboard-app.js';
import { readEngagementReport, type EngagementReportOptions } from '../../../lake/index.js';
import {
  discardKeptEngagementReports,
  KeptEngagementReports,
} from '../../../lake/engagement/kept-engagement-reports.js';
import { rebuildMessageReadModel } from '../../../lake/events/rebuild-messages.js';
import { forgetParticipantInLake } from '../../../lake/privacy/forget-participant.js';
import { inTransaction } from '../../../lake/pool.js';
import { textMessage } from '../../helpers/message-events.js';
import { runCli } from '../../helpers/run-cli.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const G1 = '120363000000000931@g.us';
const ANA = '100000000000931@lid';
const BEA = '100000000000932@lid';
const TOKEN = 'kept-reports-test-token-0123456789';
const MAX_AGE_MS = 60_000;
const OPTIONS: EngagementReportOptions = { groupJid: null, from: null, to: null, lurkerDays: 30, topMembers: 15 };
/** Day d (0 = 1 March 2024) at noon UTC. */
const at = (day: number): number => Date.parse('2024-03-01T12:00:00Z') / 1000 + day * 86_400;

const fresh = useFreshLake();
let stored = 0;
async function store(sender: string, day: number): Promise<void> {
  stored += 1;
  const id = `00000000-0000-4000-8000-${String(stored).padStart(12, '0')}`;
  await fresh.lake.store(id, JSON.stringify(textMessage({ group: G1, id: `K${String(stored)}`, sender }, at(day))));
}
const keptRows = async (): Promise<Array<{ report_key: string; messages: number }>> =>
  (
    await fresh.lake.pool.query<{ report_key: string; messages: number }>(
      `SELECT report_key, (report->'totals'->>'messages')::int AS messages FROM engagement_kept_reports ORDER BY 1`
    )
  ).rows;
/** Moves every kept report's `as_of` back, as if it had been counted that long ago. */
const age = async (ms: number): Promise<void> => {
  await fresh.lake.pool.query(`UPDATE engagement_kept_reports SET as_of = as_of - make_interval(secs => $1 / 1000.0)`, [
    ms,
  ]);
};

beforeAll(async () => {
  for (let day = 0; day < 5; day += 1) await store(day % 2 === 0 ? ANA : BEA, day);
});

describe('kept engagement reports (ADR 0034): served for a bounded delay, recounted exactly', () => {
  it('serves a kept report only while it is younger than its limit, then counts the lake as it is', async () => {
    const kept = new KeptEngagementReports(fresh.lake.pool, MAX_AGE_MS);
    const first = await kept.read(OPTIONS);
    expect(first.wasKept).toBe(false);
    expect(first.report.totals.messages).toBe(5);
    expect(await keptRows()).toEqual([{ report_key: expect.stringContaining('null') as string, messages: 5 }]);

    await store(ANA, 5);
    const second = await kept.read(OPTIONS);
    expect(second.wasKept).toBe(true);
    expect(second.report).toEqual(first.report);
    expect(second.asOf.getTime()).toBe(first.asOf.getTime());

    await age(MAX_AGE_MS + 1_000);
    const third = await kept.read(OPTIONS);
    expect(third.wasKept).toBe(false);
    expect(third.report.totals.messages).toBe(6);
    expect(third.report).toEqual(await readEngagementReport(fresh.lake.pool, OPTIONS));
    expect(await keptRows()).toEqual([{ report_key: expect.any(String) as string, messages: 6 }]);
  });

  it('recounts a report past half its limit to exactly what a count of the lake gives', async () => {
    const kept = new KeptEngagementReports(fresh.lake.pool, MAX_AGE_MS);
    const other = { ...OPTIONS, from: '2024-03-02', to: '2024-03-04' };
    await kept.read(other);
    await store(BEA, 2);
    await store(BEA, 6);
    expect(await kept.refreshDue()).toBe(0);

    await age(MAX_AGE_MS / 2 + 1_000);
    expect(await kept.refreshDue()).toBe(2);
    const whole = await kept.read(OPTIONS);
    const range = await kept.read(other);
    expect([whole.wasKept, range.wasKept]).toEqual([true, true]);
    expect(whole.report).toEqual(await readEngagementReport(fresh.lake.pool, OPTIONS));
    expect(range.report).toEqual(await readEngagementReport(fresh.lake.pool, other));
    expect(whole.report.totals.messages).toBe(8);
  });

  it('never serves or keeps a report counted before an erasure, a rebuild or a change of zone', async () => {
    const kept = new KeptEngagementReports(fresh.lake.pool, MAX_AGE_MS);
    await kept.read(OPTIONS);
    expect((await keptRows()).length).toBeGreaterThan(0);
    await inTransaction(fresh.lake.pool, (client) => forgetParticipantInLake(client, [BEA], 'erased-kept@erased'));
    expect(await keptRows()).toEqual([]);
    const afterErasure = await kept.read(OPTIONS);
    expect(afterErasure.wasKept).toBe(false);
    expect(JSON.stringify(afterErasure.report)).not.toContain(BEA);

    // A count that ends while an erasure is moving the generation on waits for it and is not kept.
    await fresh.lake.pool.query('DELETE FROM engagement_kept_reports');
    const eraser = await fresh.lake.pool.connect();
    try {
      await eraser.query('BEGIN');
      await discardKeptEngagementReports(eraser);
      const counting = kept.read(OPTIONS);
      await expect
        .poll(
          async () =>
            (
              await fresh.lake.pool.query<{ waiting: number }>(
                `SELECT count(*)::int AS waiting FROM pg_stat_activity
                  WHERE datname = current_database() AND wait_event_type = 'Lock'`
              )
            ).rows[0]?.waiting,
          { timeout: 30_000 }
        )
        .toBe(1);
      await eraser.query('COMMIT');
      expect((await counting).wasKept).toBe(false);
    } finally {
      eraser.release();
    }
    expect(await keptRows()).toEqual([]);

    await kept.read(OPTIONS);
    expect((await keptRows()).length).toBe(1);
    await inTransaction(fresh.lake.pool, (client) => rebuildMessageReadModel(client, 'America/Sao_Paulo'));
    expect(await keptRows()).toEqual([]);
    const rebuilt = await kept.read(OPTIONS);
    expect([rebuilt.wasKept, rebuilt.report.timeZone]).toEqual([false, 'America/Sao_Paulo']);
  });

  it('counts every read when the limit is 0, and keeps nothing', async () => {
    await fresh.lake.pool.query('DELETE FROM engagement_kept_reports');
    const exact = new KeptEngagementReports(fresh.lake.pool, 0);
    const before = await exact.read(OPTIONS);
    await store(ANA, 7);
    const after = await exact.read(OPTIONS);
    expect([before.wasKept, after.wasKept]).toEqual([false, false]);
    expect(after.report.totals.messages).toBe(before.report.totals.messages + 1);
    expect(await keptRows()).toEqual([]);
  });
});

describe('wa-lake report --max-age', () => {
  it('prints a kept report younger than the limit and says as of when; refuses a limit over a day', async () => {
    await fresh.lake.pool.query('DELETE FROM engagement_kept_reports');
    const cli = (args: readonly string[]): ReturnType<typeof runCli> =>
      runCli(['report', '--json', ...args], { env: { DATABASE_URL: fresh.url } });
    const counted = await cli(['--max-age', '300']);
    expect([counted.code, counted.stderr]).toEqual([0, '']);
    await store(BEA, 9);
    const kept = await cli(['--max-age', '300']);
    expect(kept.code).toBe(0);
    expect(kept.stderr).toMatch(/^wa-lake report: numbers as of \d{4}-\d\d-\d\dT[\d:.]+Z \(a kept report\)\n$/);
    expect(JSON.parse(kept.stdout)).toEqual(JSON.parse(counted.stdout));
    const now = await cli([]);
    expect((JSON.parse(now.stdout) as { totals: { messages: number } }).totals.messages).toBe(
      (JSON.parse(counted.stdout) as { totals: { messages: number } }).totals.messages + 1
    );
    const refused = await cli(['--max-age', '86401']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--max-age');
  });
});

describe('wa-lake dashboard with kept reports', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await fresh.lake.pool.query('DELETE FROM engagement_kept_reports');
    app = buildDashboardApp({
      pool: fresh.lake.pool,
      token: TOKEN,
      logger: silentLogger(),
      reportMaxAgeMs: MAX_AGE_MS,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it('counts the overview as it starts, serves it kept and says as of when', async () => {
    await expect.poll(async () => (await keptRows()).length, { timeout: 30_000 }).toBe(1);
    const [warm] = await keptRows();
    await store(BEA, 8);
    const page = await app.inject({ url: '/', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      /id="report-as-of">numbers as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(kept at most 1 min\)/
    );
    expect(await keptRows()).toEqual([warm]);
  });
});
