/**
 * Ingest throughput under a concurrent API-key-guessing flood (ADR 0014): signed
 * deliveries at concurrency 16 from one worker thread, alone and while a second worker thread floods
 * `POST /api/v1/messages` with wrong keys at concurrency 16 from the same address, alternating rounds in
 * one run. Target: median throughput under the flood ≥ 0.8 × the median without it. About 40 s.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { computeSignature } from '../common/hmac-signature.js';
import { INGEST_PATH } from '../common/ingest-body.js';
import { createRootLogger } from '../common/logger.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { buildApp } from '../ingest-api/app.js';
import { EventsRepository } from '../lake/events/events-repository.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';
import { createIngestMetrics } from '../ingest-api/metrics.js';
import { SEND_MESSAGES_PATH } from '../ingest-api/routes/send-routes.js';
import { createSendRouteDeps } from '../ingest-api/send-wiring.js';
import { serializeRequest, type LoadResult, type LoadRun } from './ingest-load-generator.js';

const SECRET = 'bench-secret-0123456789abcdef';
const CHAT_JID = '120363000000000001@g.us';
const OPERATIONS = 1_500;
const ROUNDS = 4;
const CONCURRENCY = 16;
const FLOOD_REQUESTS = 20_000;
const TARGET_RATIO = 0.8;
const LOAD_GENERATOR_URL = new URL('./ingest-load-generator.ts', import.meta.url).href;

function loadWorker(): Worker {
  // Node 20 does not pass tsx's loader on to workers: the worker imports the module through tsx's API.
  const url = JSON.stringify(LOAD_GENERATOR_URL);
  return new Worker(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${url}, ${url}))`, { eval: true });
}

function run(worker: Worker, load: LoadRun): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.postMessage(load);
  });
}

function signedRequests(port: number): Buffer[] {
  return Array.from({ length: OPERATIONS }, () => {
    const eventId = randomUUID();
    const body = JSON.stringify({
      type: 'messages.upsert',
      chat_jid: CHAT_JID,
      captured_at: new Date().toISOString(),
      upsert_type: 'notify',
      payload: {
        key: { remoteJid: CHAT_JID, id: randomUUID(), participant: '100000000000001@lid' },
        messageTimestamp: Math.floor(Date.now() / 1000),
        message: { conversation: 'flood bench' },
      },
    });
    const headers = {
      'content-type': 'application/json',
      'x-event-id': eventId,
      'x-signature': computeSignature(SECRET, eventId, body),
    };
    return serializeRequest(port, INGEST_PATH, headers, body);
  });
}

function guessRequests(port: number): Buffer[] {
  const body = JSON.stringify({ to: CHAT_JID, text: 'guess', category: 'otp' });
  return Array.from({ length: FLOOD_REQUESTS }, (_, i) =>
    serializeRequest(
      port,
      SEND_MESSAGES_PATH,
      { 'content-type': 'application/json', 'x-api-key': `wa_guess_${i}`, 'idempotency-key': String(i) },
      body
    )
  );
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-flood-'));
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_flood' });
  const logger = createRootLogger({ level: 'silent' });
  const pool = createPool(postgres.databaseUrl, { max: 16 });
  await runMigrations({ databaseUrl: postgres.databaseUrl });
  const app = buildApp({
    webhookSecrets: [SECRET],
    bodyLimitBytes: 4 * 1024 * 1024,
    repository: new EventsRepository(pool, logger),
    metrics: createIngestMetrics(),
    logger,
    send: createSendRouteDeps({ pool, onAccepted: () => undefined, textMaxChars: 4096 }),
  });
  const answers = new Map<number, number>();
  app.addHook('onResponse', async (request, reply) => {
    if (request.url === SEND_MESSAGES_PATH) answers.set(reply.statusCode, (answers.get(reply.statusCode) ?? 0) + 1);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const ingest = loadWorker();
  const calm: number[] = [];
  const flooded: number[] = [];
  let floodRps = 0;
  try {
    await run(ingest, { port, concurrency: CONCURRENCY, requests: signedRequests(port), expectedStatus: 201 });
    for (let round = 0; round < ROUNDS; round += 1) {
      const alone = await run(ingest, {
        port,
        concurrency: CONCURRENCY,
        requests: signedRequests(port),
        expectedStatus: 201,
      });
      calm.push(OPERATIONS / alone.seconds);
      const flood = loadWorker();
      void run(flood, { port, concurrency: CONCURRENCY, requests: guessRequests(port), expectedStatus: 401 }).catch(
        () => undefined
      );
      // Let the flood block itself first (its address past INGEST_AUTH_FAILURES_MAX), then start the clock.
      while ((answers.get(401) ?? 0) < 20) await new Promise((resolve) => setTimeout(resolve, 20));
      const startCount = [...answers.values()].reduce((a, b) => a + b, 0);
      const under = await run(ingest, {
        port,
        concurrency: CONCURRENCY,
        requests: signedRequests(port),
        expectedStatus: 201,
      });
      floodRps = ([...answers.values()].reduce((a, b) => a + b, 0) - startCount) / under.seconds;
      await flood.terminate();
      if (under.failures > 0 || alone.failures > 0) throw new Error('an ingest request was not answered 201');
      flooded.push(OPERATIONS / under.seconds);
    }
  } finally {
    await ingest.terminate();
    await app.close();
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const ratio = median(flooded) / median(calm);
  process.stdout.write(
    `ingest rps median alone ${Math.round(median(calm))}, under key-guessing flood ${Math.round(median(flooded))} ` +
      `(flood answered ${Math.round(floodRps)}/s; 401: ${answers.get(401) ?? 0}, 429: ${answers.get(429) ?? 0}); ` +
      `ratio ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO})\n`
  );
}

await main();
