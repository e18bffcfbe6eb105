/**
 * Benchmark of the ingest API (ADR 0006): signed requests per second at concurrency 16 and 64
 * against a listening server on 127.0.0.1 backed by embedded PostgreSQL, next to the rate of the raw
 * `INSERT … ON CONFLICT DO NOTHING` through the same pool without HTTP, and their ratio (target ≥ 0.6).
 * The HTTP client runs in a worker thread (`bench/ingest-load-generator.ts`) so it never runs on the
 * server's event loop. Run: `npx tsx bench/ingest-api.ts`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { computeSignature } from '../common/hmac-signature.js';
import { INGEST_PATH } from '../common/ingest-body.js';
import { createRootLogger, type Logger } from '../common/logger.js';
import { buildApp } from '../ingest-api/app.js';
import { EventsRepository } from '../lake/events/events-repository.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';
import { createIngestMetrics } from '../ingest-api/metrics.js';
import { createMessageRowFloorDatabase } from './message-row-floor.js';
import { serializeRequest, type LoadResult, type LoadRun } from './ingest-load-generator.js';
import { currentThreadCpuSeconds, processTreeCpuSeconds } from './process-tree-cpu.js';

/** Requests (and raw inserts) per measurement: enough for stable figures, bounded so the bench ends in about a minute. */
const OPERATIONS = 3_000;
const WARMUP_OPERATIONS = 600;
const ROUNDS = 8;
const CONCURRENCY_LEVELS = [16, 64];
const POOL_MAX = 16;
const TARGET_RATIO = 0.6;
const READ_MODEL_TARGET_RATIO = 0.8;
const SECRET = 'bench-secret-0123456789abcdef';
const CHAT_JID = '120363000000000001@g.us';
const LOAD_GENERATOR_URL = new URL('./ingest-load-generator.ts', import.meta.url).href;

/** A group text message from one of 5,000 members, sent now (many members, as the engagement views count them). */
function messageBody(): string {
  const member = String(Math.floor(Math.random() * 5_000)).padStart(14, '0');
  return JSON.stringify({
    type: 'messages.upsert',
    chat_jid: CHAT_JID,
    captured_at: new Date().toISOString(),
    upsert_type: 'notify',
    payload: {
      key: { remoteJid: CHAT_JID, id: randomUUID(), participant: `1${member}@lid` },
      messageTimestamp: Math.floor(Date.now() / 1000),
      message: { conversation: 'héllo group 😀' },
    },
  });
}

function signedRequests(port: number, count: number): Buffer[] {
  return Array.from({ length: count }, () => {
    const body = messageBody();
    const eventId = randomUUID();
    const headers = {
      'content-type': 'application/json',
      'x-event-id': eventId,
      'x-signature': computeSignature(SECRET, eventId, body),
    };
    return serializeRequest(port, INGEST_PATH, headers, body);
  });
}

/** The load generator worker: one measurement at a time, requests signed before the clock starts. */
class LoadClient {
  // Node 20 does not pass tsx's loader on to workers, so the worker imports the module through tsx's API.
  private readonly worker = new Worker(
    `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(LOAD_GENERATOR_URL)}, ${JSON.stringify(LOAD_GENERATOR_URL)}))`,
    { eval: true }
  );

  async requestsPerSecond(port: number, count: number, concurrency: number): Promise<number> {
    return Math.round(count / (await this.seconds(port, count, concurrency)));
  }

  /** Seconds the worker took for `count` requests (timed in the worker, from first send to last answer). */
  async seconds(port: number, count: number, concurrency: number): Promise<number> {
    const run: LoadRun = { port, concurrency, requests: signedRequests(port, count), expectedStatus: 201 };
    const result = await new Promise<LoadResult>((resolve, reject) => {
      this.worker.once('message', resolve);
      this.worker.once('error', reject);
      this.worker.postMessage(run);
    });
    this.worker.removeAllListeners('error');
    if (result.error !== undefined || result.failures > 0) {
      throw new Error(`${result.failures} requests were not answered 201 (${result.error ?? 'wrong status'})`);
    }
    return result.seconds;
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/** Runs `operation` `total` times with `concurrency` in flight; returns operations per second. */
async function measure(
  total: number,
  concurrency: number,
  operation: (index: number) => Promise<void>
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await operation(next++);
    })
  );
  return Math.round(total / (Number(process.hrtime.bigint() - started) / 1e9));
}

// The baseline: one single-row `INSERT … ON CONFLICT DO NOTHING` per event (named, so
// prepared once per connection; the same columns and parameters the API stores), through the same pool
// at the same concurrency. The API itself writes events without projection work by group commit
// (ADR 0006); the table shows how many rows its statements carried.
const RAW_INSERT = {
  name: 'bench_raw_insert',
  text: `INSERT INTO whatsapp_event_logs
    (id, event_id, type, chat_jid, payload, received_at, captured_at, upsert_type, occurred_at, sanitized)
  VALUES ($1, $2, $3, $4, ($5::jsonb) -> 'payload', $6, $7, $8, $9, $10)
  ON CONFLICT (event_id) DO NOTHING`,
};

/** The raw insert of one body through the pool, without HTTP, parsing or projections. */
async function rawInsert(pool: pg.Pool, body: string): Promise<void> {
  const now = new Date();
  const values = [uuidv7(), randomUUID(), 'messages.upsert', CHAT_JID, body, now, now, 'notify', now, false];
  await pool.query({ ...RAW_INSERT, values });
}

function rawInsertRate(pool: pg.Pool, count: number, concurrency: number): Promise<number> {
  const bodies = Array.from({ length: count }, messageBody);
  return measure(count, concurrency, (i) => rawInsert(pool, bodies[i] ?? ''));
}

async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
}

const ratio = (http: number, raw: number): number => Number((http / raw).toFixed(2));

/** Rows and statements written by the API's group commit since the last {@link BatchCounter.take}. */
class BatchCounter {
  private rows = 0;
  private statements = 0;
  readonly record = (rows: number): void => {
    this.rows += rows;
    this.statements += 1;
  };
  /** Mean rows per statement since the previous call (0 when none), then resets. */
  take(): number {
    const mean = this.statements === 0 ? 0 : this.rows / this.statements;
    this.rows = 0;
    this.statements = 0;
    return Number(mean.toFixed(1));
  }
}

const silentLogger = (): Logger =>
  createRootLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) });

interface BenchApps {
  app: FastifyInstance;
  noReadModelApp: FastifyInstance;
  messageRowFloorApp: FastifyInstance;
  noDatabaseApp: FastifyInstance;
}

function buildBenchApps(pool: pg.Pool, floorPool: pg.Pool, batches: BatchCounter): BenchApps {
  const logger = silentLogger();
  const common = { webhookSecrets: [SECRET], bodyLimitBytes: 4 * 1024 * 1024, logger };
  const repository = new EventsRepository(pool, logger, { onInsertBatch: batches.record });
  const app = buildApp({ ...common, repository, metrics: createIngestMetrics() });
  // ADR 0013: the same app without the message read model and its rollup, to price them.
  const noReadModelApp = buildApp({
    ...common,
    repository: new EventsRepository(pool, logger, { isMessageReadModelEnabled: false }),
    metrics: createIngestMetrics(),
  });
  // ADR 0013, the ceiling of any read model: without ours, on a database whose raw-row statements
  // also write one plain message row per message (`message-row-floor.ts`).
  const messageRowFloorApp = buildApp({
    ...common,
    repository: new EventsRepository(floorPool, logger, { isMessageReadModelEnabled: false }),
    metrics: createIngestMetrics(),
  });
  // Diagnostic: the same app with a store that does nothing — the HTTP ceiling of this host.
  const noDatabaseApp = buildApp({
    ...common,
    repository: {
      store: () => Promise.resolve({ status: 'stored', isProjectionFailed: false }),
      ping: () => Promise.resolve(),
    },
    metrics: createIngestMetrics(),
  });
  return { app, noReadModelApp, messageRowFloorApp, noDatabaseApp };
}

/** CPU µs per request of each measurement: PostgreSQL, this whole process, and the API's event-loop thread. */
interface RequestCpu {
  postgres: number[];
  node: number[];
  apiThread: number[];
}

/** Measures one concurrency level: warm-up, then ROUNDS alternating raw/HTTP rounds, then the no-db ceiling. */
async function measureLevel(
  pool: pg.Pool,
  client: LoadClient,
  batches: BatchCounter,
  ports: { app: number; noReadModel: number; messageRowFloor: number; noDatabase: number },
  concurrency: number,
  postgresPid: number
): Promise<Record<string, number>> {
  // CPU µs per request of PostgreSQL (all its processes), of this process (server and load client) and of the
  // API's event-loop thread alone: other tenants of a shared host bend them less than a rate.
  const withCpu = async (run: () => Promise<number>, cpu: RequestCpu): Promise<number> => {
    const before = processTreeCpuSeconds(postgresPid);
    const nodeBefore = process.cpuUsage();
    const apiThreadBefore = currentThreadCpuSeconds();
    const perSecond = await run();
    const node = process.cpuUsage(nodeBefore);
    cpu.postgres.push(Math.round(((processTreeCpuSeconds(postgresPid) - before) * 1e6) / OPERATIONS));
    cpu.node.push(Math.round((node.user + node.system) / OPERATIONS));
    cpu.apiThread.push(Math.round(((currentThreadCpuSeconds() - apiThreadBefore) * 1e6) / OPERATIONS));
    return perSecond;
  };
  const cpuWith: RequestCpu = { postgres: [], node: [], apiThread: [] };
  const cpuWithout: RequestCpu = { postgres: [], node: [], apiThread: [] };
  const cpuFloor: RequestCpu = { postgres: [], node: [], apiThread: [] };
  await rawInsertRate(pool, WARMUP_OPERATIONS, concurrency);
  await client.requestsPerSecond(ports.app, WARMUP_OPERATIONS, concurrency);
  batches.take();
  await client.requestsPerSecond(ports.noReadModel, WARMUP_OPERATIONS, concurrency);
  await client.requestsPerSecond(ports.messageRowFloor, WARMUP_OPERATIONS, concurrency);
  const raw: number[] = [];
  const httpFloor: number[] = [];
  const http: number[] = [];
  const httpNoReadModel: number[] = [];
  const measurements: Array<() => Promise<void>> = [
    async () => void raw.push(await rawInsertRate(pool, OPERATIONS, concurrency)),
    async () =>
      void http.push(await withCpu(() => client.requestsPerSecond(ports.app, OPERATIONS, concurrency), cpuWith)),
    async () =>
      void httpNoReadModel.push(
        await withCpu(() => client.requestsPerSecond(ports.noReadModel, OPERATIONS, concurrency), cpuWithout)
      ),
    async () =>
      void httpFloor.push(
        await withCpu(() => client.requestsPerSecond(ports.messageRowFloor, OPERATIONS, concurrency), cpuFloor)
      ),
  ];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternated, each round starting one step later, so that a burst of load from other tenants of the
    // shared host (or of PostgreSQL's autovacuum and checkpoints) hits every figure alike.
    for (let step = 0; step < measurements.length; step += 1) {
      await measurements[(round + step) % measurements.length]?.();
    }
  }
  const c = concurrency;
  return {
    [`http_rps_c${c}`]: Math.max(...http),
    [`http_rps_median_c${c}`]: median(http),
    [`raw_insert_rps_c${c}`]: Math.max(...raw),
    [`raw_insert_rps_median_c${c}`]: median(raw),
    [`ratio_c${c}`]: ratio(Math.max(...http), Math.max(...raw)),
    [`ratio_median_c${c}`]: ratio(median(http), median(raw)),
    [`rows_per_statement_c${c}`]: batches.take(),
    [`http_no_read_model_rps_median_c${c}`]: median(httpNoReadModel),
    [`read_model_ratio_median_c${c}`]: ratio(median(http), median(httpNoReadModel)),
    [`message_row_floor_ratio_median_c${c}`]: ratio(median(httpFloor), median(httpNoReadModel)),
    [`postgres_cpu_us_per_request_c${c}`]: median(cpuWith.postgres),
    [`postgres_cpu_us_per_request_no_read_model_c${c}`]: median(cpuWithout.postgres),
    [`postgres_cpu_us_per_request_message_row_floor_c${c}`]: median(cpuFloor.postgres),
    [`node_cpu_us_per_request_c${c}`]: median(cpuWith.node),
    [`node_cpu_us_per_request_no_read_model_c${c}`]: median(cpuWithout.node),
    [`api_thread_cpu_us_per_request_c${c}`]: median(cpuWith.apiThread),
    [`api_thread_cpu_us_per_request_no_read_model_c${c}`]: median(cpuWithout.apiThread),
    [`http_no_db_rps_c${c}`]: await client.requestsPerSecond(ports.noDatabase, OPERATIONS, concurrency),
  };
}

/**
 * Ingest API throughput (ADR 0006). For each concurrency level: best and median of ROUNDS
 * measurements of OPERATIONS signed requests (client in a worker thread) and of OPERATIONS raw inserts
 * (this process, same pool, same concurrency), their ratios, `rows_per_statement_c*` (mean rows per
 * group-commit statement during the HTTP rounds), and `http_no_db_rps_c*`: the same app
 * with a no-op store, i.e. the HTTP ceiling of the host. Also the 1-minute load average before and after.
 *
 * @returns `{ http_rps_c16, http_rps_median_c16, raw_insert_rps_c16, …, ratio_c16, ratio_median_c16, … }`.
 * @throws when a request is not answered 201.
 */
export async function runIngestBench(): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-pg-'));
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_bench' });
  const pool = createPool(postgres.databaseUrl, { max: POOL_MAX });
  await runMigrations({ databaseUrl: postgres.databaseUrl });
  const floorUrl = await createMessageRowFloorDatabase(postgres.databaseUrl, 'wa_lake_bench_message_row_floor');
  const floorPool = createPool(floorUrl, { max: POOL_MAX });
  const batches = new BatchCounter();
  const apps = buildBenchApps(pool, floorPool, batches);
  const client = new LoadClient();
  const results: Record<string, number> = { load_average_1m_start: loadavg()[0] ?? 0 };
  try {
    const ports = {
      app: await listenOnLoopback(apps.app),
      noReadModel: await listenOnLoopback(apps.noReadModelApp),
      messageRowFloor: await listenOnLoopback(apps.messageRowFloorApp),
      noDatabase: await listenOnLoopback(apps.noDatabaseApp),
    };
    for (const concurrency of CONCURRENCY_LEVELS) {
      Object.assign(results, await measureLevel(pool, client, batches, ports, concurrency, postgres.pid));
    }
    results['load_average_1m_end'] = loadavg()[0] ?? 0;
    return results;
  } finally {
    await client.close();
    for (const app of [apps.app, apps.noReadModelApp, apps.messageRowFloorApp, apps.noDatabaseApp]) await app.close();
    await floorPool.end();
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function printTable(results: Record<string, number>): void {
  const load = (key: string): string => (results[key] ?? 0).toFixed(1);
  process.stdout.write(
    `ingest API benchmark: ${ROUNDS} rounds x ${OPERATIONS} operations per figure (after ${WARMUP_OPERATIONS} warm-up), ` +
      `pool ${POOL_MAX}, embedded PostgreSQL, client in a worker thread\n` +
      `target: median ratio >= ${TARGET_RATIO}; load average (1 min) ${load('load_average_1m_start')} before, ` +
      `${load('load_average_1m_end')} after, on a shared host with ${String(os.availableParallelism())} cores\n`
  );
  // Bests and medians are taken per column, so the ratio of the bests may be below that of the medians.
  const header = [
    'concurrency',
    'http best',
    'http median',
    'raw best',
    'raw median',
    'bests ratio',
    'medians ratio',
    'rows/stmt',
    'http, no db',
    'target',
  ];
  process.stdout.write(`  ${header.map((h, i) => (i === 0 ? h.padEnd(12) : h.padStart(13))).join(' ')}\n`);
  for (const c of CONCURRENCY_LEVELS) {
    const keys = [
      'http_rps',
      'http_rps_median',
      'raw_insert_rps',
      'raw_insert_rps_median',
      'ratio',
      'ratio_median',
      'rows_per_statement',
      'http_no_db_rps',
    ];
    const cells = keys.map((key) => String(results[`${key}_c${c}`]).padStart(13));
    const verdict = (results[`ratio_median_c${c}`] ?? 0) >= TARGET_RATIO ? 'met' : 'NOT MET';
    process.stdout.write(`  ${String(c).padEnd(12)} ${cells.join(' ')} ${verdict.padStart(13)}\n`);
  }
  // ADR 0013: signed-insert rate with the message read model and rollup vs without, same run.
  for (const c of CONCURRENCY_LEVELS) {
    const value = results[`read_model_ratio_median_c${c}`] ?? 0;
    process.stdout.write(
      `  read model, concurrency ${String(c)}: median ${String(results[`http_rps_median_c${c}`])} rps with, ` +
        `${String(results[`http_no_read_model_rps_median_c${c}`])} rps without, ratio ${String(value)} ` +
        `(target >= ${READ_MODEL_TARGET_RATIO}: ${value >= READ_MODEL_TARGET_RATIO ? 'met' : 'NOT MET'}); ` +
        `CPU per request: PostgreSQL ${String(results[`postgres_cpu_us_per_request_c${c}`])} µs with, ` +
        `${String(results[`postgres_cpu_us_per_request_no_read_model_c${c}`])} µs without, ` +
        `${String(results[`postgres_cpu_us_per_request_message_row_floor_c${c}`])} µs on the ceiling; server and load client ` +
        `${String(results[`node_cpu_us_per_request_c${c}`])} µs with, ` +
        `${String(results[`node_cpu_us_per_request_no_read_model_c${c}`])} µs without, of which the API thread ` +
        `${String(results[`api_thread_cpu_us_per_request_c${c}`])} µs with, ` +
        `${String(results[`api_thread_cpu_us_per_request_no_read_model_c${c}`])} µs without; ` +
        `ceiling (a plain message row per message instead of our read model) ${String(results[`message_row_floor_ratio_median_c${c}`])}\n`
    );
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printTable(await runIngestBench());
}
