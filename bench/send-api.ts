/**
 * Benchmark of the send request API, two figures:
 * 1. accepted requests per second through `POST /api/v1/messages` (key check, validation, intent
 *    committed, 202) as a ratio to signed ingest inserts (`POST /api/webhooks/whatsapp`, 201) in the same
 *    run, same server, same pool, same concurrency (target ≥ 0.5). The workflow start is not part of the
 *    answer (architecture.md §12: it follows the commit), so it is a no-op in this part; rounds alternate.
 * 2. at 20 requests/s, 202 → workflow started p50/p99 against a real Temporal dev server, production wiring
 *    (`send-start-latency.ts`; target p50 ≤ 100 ms).
 * Run: `npm run bench:send` (`-- --seconds 10` for a shorter latency run).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { computeSignature } from '../common/hmac-signature.js';
import { INGEST_PATH } from '../common/ingest-body.js';
import { createRootLogger } from '../common/logger.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { buildApp } from '../ingest-api/app.js';
import { DEFAULT_INGEST_REQUEST_LIMITS } from '../ingest-api/request-guards.js';
import { EventsRepository } from '../lake/events/events-repository.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';
import { SendAdminRepository } from '../lake/send/send-admin-repository.js';
import { createIngestMetrics } from '../ingest-api/metrics.js';
import { generateApiKey } from '../lake/send/api-key.js';
import { createSendRouteDeps } from '../ingest-api/send-wiring.js';
import { runLoad, serializeRequest } from './ingest-load-generator.js';
import { processTreeCpuSeconds } from './process-tree-cpu.js';
import { measureStartLatency } from './send-start-latency.js';

const OPERATIONS = 2_000;
const CONCURRENCY = 16;
const SECRET = 'bench-secret-0123456789abcdef';
const GROUP = '120363000000000001@g.us';
const { values: args } = parseArgs({
  options: { rate: { type: 'string', default: '20' }, seconds: { type: 'string', default: '30' } },
});
const print = (line: string): void => void process.stdout.write(`${line}\n`);
const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-send-'));
const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_bench_send' });
try {
  const loadAtStart = load();
  await runMigrations({ databaseUrl: postgres.databaseUrl });
  const logger = createRootLogger({ level: 'silent' });
  const pool = createPool(postgres.databaseUrl, { max: 16, logger });
  const admin = new SendAdminRepository(pool);
  const key = generateApiKey();
  await admin.createApiKey({
    name: 'bench',
    accountId: 'default',
    keyHash: key.hash,
    keyPrefix: key.prefix,
    webhookUrl: null,
  });
  await admin.approveAccount('default');
  await pool.query('INSERT INTO whatsapp_groups (jid) VALUES ($1)', [GROUP]);
  let intentStatements = 0;
  let intentRows = 0;
  const app = buildApp({
    webhookSecrets: [SECRET],
    bodyLimitBytes: 4 * 1024 * 1024,
    repository: new EventsRepository(pool, logger),
    metrics: createIngestMetrics(),
    logger,
    // One key sends the whole bench: its per-key rate (ADR 0014) must not be what is measured.
    limits: { ...DEFAULT_INGEST_REQUEST_LIMITS, sendKeyRequestsMax: 1_000_000 },
    send: createSendRouteDeps({
      pool,
      onAccepted: () => undefined,
      textMaxChars: 4096,
      onIntentBatch: (rows) => {
        intentStatements += 1;
        intentRows += rows;
      },
    }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const sendRequests = (count: number): Buffer[] =>
    Array.from({ length: count }, (_, i) =>
      serializeRequest(
        port,
        '/api/v1/messages',
        { 'content-type': 'application/json', 'x-api-key': key.key, 'idempotency-key': randomUUID() },
        JSON.stringify({ to: GROUP, text: `reminder ${i}`, category: 'transactional' })
      )
    );
  const ingestRequests = (count: number): Buffer[] =>
    Array.from({ length: count }, () => {
      const eventId = randomUUID();
      const body = JSON.stringify({
        type: 'messages.upsert',
        chat_jid: GROUP,
        captured_at: new Date().toISOString(),
        payload: { key: { remoteJid: GROUP, id: randomUUID() }, message: { conversation: 'hello' } },
      });
      const headers = {
        'content-type': 'application/json',
        'x-event-id': eventId,
        'x-signature': computeSignature(SECRET, eventId, body),
      };
      return serializeRequest(port, INGEST_PATH, headers, body);
    });
  // Rate, and PostgreSQL's CPU µs per request (all its processes), which other tenants of a shared host bend less.
  const rate = async (requests: Buffer[], expectedStatus: number): Promise<{ perSecond: number; pgCpuUs: number }> => {
    const cpuBefore = processTreeCpuSeconds(postgres.pid);
    const result = await runLoad({ port, concurrency: CONCURRENCY, requests, expectedStatus });
    if (result.failures > 0 || result.error !== undefined)
      throw new Error(`failures: ${result.failures} ${result.error ?? ''}`);
    const pgCpuUs = ((processTreeCpuSeconds(postgres.pid) - cpuBefore) * 1e6) / requests.length;
    return { perSecond: Math.round(requests.length / result.seconds), pgCpuUs: Math.round(pgCpuUs) };
  };
  await rate(sendRequests(300), 202);
  await rate(ingestRequests(300), 201);
  const send: Array<{ perSecond: number; pgCpuUs: number }> = [];
  const ingest: Array<{ perSecond: number; pgCpuUs: number }> = [];
  for (let round = 0; round < 3; round += 1) {
    send.push(await rate(sendRequests(OPERATIONS), 202));
    ingest.push(await rate(ingestRequests(OPERATIONS), 201));
  }
  const sendRates = send.map((r) => r.perSecond);
  const ingestRates = ingest.map((r) => r.perSecond);
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const throughput = {
    concurrency: CONCURRENCY,
    sendAcceptedPerSecond: median(sendRates),
    ingestSignedInsertsPerSecond: median(ingestRates),
    ratio: Number((median(sendRates) / median(ingestRates)).toFixed(2)),
    ratioTarget: 0.5,
    meanIntentsPerStatement: Number((intentRows / Math.max(1, intentStatements)).toFixed(1)),
    sendPostgresCpuUsPerRequest: median(send.map((r) => r.pgCpuUs)),
    ingestPostgresCpuUsPerRequest: median(ingest.map((r) => r.pgCpuUs)),
  };
  print(
    `send accepted ${throughput.sendAcceptedPerSecond}/s vs ingest signed inserts ${throughput.ingestSignedInsertsPerSecond}/s ` +
      `(concurrency ${CONCURRENCY}, median of 3 alternating rounds of ${OPERATIONS}): ratio ${throughput.ratio} ` +
      `(target ≥ 0.5); ${throughput.meanIntentsPerStatement} intents per accept statement`
  );
  print(
    `PostgreSQL CPU per request: send ${throughput.sendPostgresCpuUsPerRequest} µs, ingest ${throughput.ingestPostgresCpuUsPerRequest} µs`
  );
  await app.close();
  const latency = await measureStartLatency({
    pool,
    databaseUrl: postgres.databaseUrl,
    dataDir,
    apiKey: key.key,
    groupJid: GROUP,
    rate: Number(args.rate),
    seconds: Number(args.seconds),
    logger,
  });
  const { fromAnswer, fromClientReceipt } = latency;
  print(
    `202 → workflow started at ${latency.requestsPerSecond} requests/s (${latency.requests} requests, ` +
      `${latency.started} started), from the API's answer: p50 ${fromAnswer.p50Ms} ms (target ≤ 100), ` +
      `p99 ${fromAnswer.p99Ms} ms, min ${fromAnswer.minMs} ms, max ${fromAnswer.maxMs} ms; ` +
      `from the client's receipt: p50 ${fromClientReceipt.p50Ms} ms, p99 ${fromClientReceipt.p99Ms} ms`
  );
  const loadAtEnd = load();
  print(`load average (1/5/15 min) at start ${loadAtStart}, at end ${loadAtEnd}`);
  print(JSON.stringify({ ...throughput, startLatency: { ...latency, p50TargetMs: 100 }, loadAtStart, loadAtEnd }));
  await pool.end();
} finally {
  await postgres.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
