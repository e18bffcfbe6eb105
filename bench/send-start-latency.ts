/**
 * 202 → workflow started latency of the send request API (target p50 ≤ 100 ms at 20
 * requests/s): the ingest API wired as in production (`createSendComponents`: lazy Temporal client with the
 * payload codec, immediate start after COMMIT, sweeper running) against a real `temporal server start-dev`
 * with a state file (WAL, `synchronous=FULL`, as `wa-lake dev` runs it). Requests are sent open-loop at a
 * fixed rate; "started" is the workflow's start time as Temporal records it (`describe().startTime`, the
 * WorkflowExecutionStarted event time), minus the time the client received the 202. No worker polls the
 * task queue: starting does not need one, and the figure is the API's, not the worker's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type pg from 'pg';
import { createDataConverter } from '../common/temporal-data-converter.js';
import type { Logger } from '../common/logger.js';
import { formatPayloadEncryptionKey } from '../common/payload-encryption-keys.js';
import { resolveTemporalCliPath } from '../dev-stack/temporal-binaries.js';
import { startTemporalDevServer } from '../dev-stack/temporal-dev-server.js';
import { buildApp } from '../ingest-api/app.js';
import { loadIngestConfig } from '../ingest-api/config.js';
import { EventsRepository } from '../lake/events/events-repository.js';
import { createIngestMetrics } from '../ingest-api/metrics.js';
import { createSendComponents } from '../ingest-api/send-wiring.js';
import { sendWorkflowId } from '../workflows/send-contracts.js';

/** Percentiles of one latency, in ms. */
export interface LatencySummary {
  minMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * `started` counts workflows found in Temporal. `fromAnswer`: from the moment the API finished writing the
 * 202 (Fastify `onResponse`). `fromClientReceipt`: from the moment the client had read the 202; on a
 * loaded host the client's event loop can be late, so it can be below 0 (the start is sent right after
 * COMMIT, while the 202 is still on its way).
 */
export interface StartLatencyResult {
  requestsPerSecond: number;
  requests: number;
  started: number;
  fromAnswer: LatencySummary;
  fromClientReceipt: LatencySummary;
}

const WARM_UP_REQUESTS = 20;
const DESCRIBE_CONCURRENCY = 8;

function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const percentile = (p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return {
    minMs: sorted[0] ?? Number.NaN,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    maxMs: sorted.at(-1) ?? Number.NaN,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// A start that failed is retried by the sweeper (every SEND_SWEEP_INTERVAL_MS); its latency counts too.
async function waitUntilStarted(pool: pg.Pool, ids: string[]): Promise<void> {
  const deadlineMs = Date.now() + 60_000;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbound_messages WHERE id = ANY($1::uuid[]) AND workflow_started_at IS NULL',
      [ids]
    );
    if ((rows[0]?.n ?? 0) === 0) return;
    if (Date.now() > deadlineMs) throw new Error(`${rows[0]?.n} workflows not started after 60 s`);
    await sleep(200);
  }
}

/**
 * Runs `rate × seconds` requests at `rate` per second against a fresh dev server in `dataDir` and returns
 * the 202 → started percentiles. @throws Error when a request is not answered 202.
 */
export async function measureStartLatency(options: {
  pool: pg.Pool;
  databaseUrl: string;
  dataDir: string;
  apiKey: string;
  groupJid: string;
  rate: number;
  seconds: number;
  logger: Logger;
}): Promise<StartLatencyResult> {
  const temporal = await startTemporalDevServer({
    cliPath: resolveTemporalCliPath(process.env),
    uiPort: null,
    dbFile: join(options.dataDir, 'temporal.sqlite'),
  });
  const config = loadIngestConfig({
    DATABASE_URL: options.databaseUrl,
    WHATSAPP_WEBHOOK_SECRET: 'bench-secret-0123456789abcdef',
    // One key sends the whole bench: its per-key rate (ADR 0014) must not be what is measured.
    SEND_API_KEY_REQUESTS_MAX: '1000000',
    TEMPORAL_ADDRESS: temporal.address,
    PAYLOAD_ENCRYPTION_KEYS: formatPayloadEncryptionKey('k1', randomBytes(32)),
  });
  // The throughput part committed rows whose start was a no-op: mark them, or this run's sweeper would
  // drain them and measure a backlog instead of 20 requests/s.
  await options.pool.query(
    'UPDATE outbound_messages SET workflow_started_at = now() WHERE workflow_started_at IS NULL'
  );
  const send = createSendComponents({ pool: options.pool, config, logger: options.logger });
  const app = buildApp({
    webhookSecrets: config.webhookSecrets,
    bodyLimitBytes: config.bodyLimitBytes,
    repository: new EventsRepository(options.pool, options.logger),
    metrics: createIngestMetrics(),
    logger: options.logger,
    limits: config.limits,
    send: send.deps,
  });
  // The 202's own time: when Fastify finished writing it, keyed by the message id it carried.
  const answeredAtMs = new Map<string, number>();
  const answeredIds = new WeakMap<object, string>();
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 202 && typeof payload === 'string') {
      answeredIds.set(request, (JSON.parse(payload) as { id: string }).id);
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const id = answeredIds.get(request);
    if (id !== undefined) answeredAtMs.set(id, Date.now());
    done();
  });
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, dataConverter: createDataConverter(config.send.payloadEncryptionKeys) });
  try {
    send.starter.startSweeper();
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const post = async (i: number): Promise<{ id: string; acceptedAtMs: number }> => {
      const response = await fetch(`${url}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ to: options.groupJid, text: `reminder ${i}`, category: 'transactional' }),
      });
      const body = (await response.json()) as { id?: string };
      const acceptedAtMs = Date.now();
      if (response.status !== 202 || body.id === undefined) throw new Error(`answer ${response.status}`);
      return { id: body.id, acceptedAtMs };
    };
    for (let i = 0; i < WARM_UP_REQUESTS; i += 1) await post(i);
    const total = Math.round(options.rate * options.seconds);
    const startMs = Date.now();
    const pending: Array<Promise<{ id: string; acceptedAtMs: number }>> = [];
    for (let i = 0; i < total; i += 1) {
      const dueMs = startMs + (i * 1000) / options.rate;
      if (dueMs > Date.now()) await sleep(dueMs - Date.now());
      pending.push(post(i));
    }
    const accepted = await Promise.all(pending);
    await waitUntilStarted(
      options.pool,
      accepted.map((a) => a.id)
    );
    const fromAnswer: number[] = [];
    const fromClientReceipt: number[] = [];
    for (let offset = 0; offset < accepted.length; offset += DESCRIBE_CONCURRENCY) {
      const slice = accepted.slice(offset, offset + DESCRIBE_CONCURRENCY);
      await Promise.all(
        slice.map(async ({ id, acceptedAtMs }) => {
          const description = await client.workflow.getHandle(sendWorkflowId(id)).describe();
          const startedAtMs = description.startTime.getTime();
          fromAnswer.push(startedAtMs - (answeredAtMs.get(id) ?? Number.NaN));
          fromClientReceipt.push(startedAtMs - acceptedAtMs);
        })
      );
    }
    return {
      requestsPerSecond: options.rate,
      requests: total,
      started: fromAnswer.length,
      fromAnswer: summarize(fromAnswer),
      fromClientReceipt: summarize(fromClientReceipt),
    };
  } finally {
    await app.close();
    await send.close();
    await connection.close();
    await temporal.stop();
  }
}
