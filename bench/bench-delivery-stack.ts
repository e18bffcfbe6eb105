/**
 * The delivery path as `wa-lake dev` runs it, for the benches that drive it: a local stack (Temporal dev server,
 * embedded PostgreSQL, ingest API, worker), an outbox with its relay (eager start) and an `EventPipeline` in place
 * of WhatsApp. One setup and one teardown for every bench that measures capture → lake.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { startLocalStack } from '../cli/local-stack/start-local-stack.js';
import { loadCollectorConfig } from '../collector/config.js';
import { EventPipeline } from '../collector/event-pipeline.js';
import { OutboxRelay } from '../collector/outbox-relay.js';
import { OutboxStore } from '../collector/outbox-store.js';
import { createWindowedAlertSink } from '../common/windowed-alert-sink.js';

export interface BenchDeliveryStack {
  dataDir: string;
  logger: pino.Logger;
  config: ReturnType<typeof loadCollectorConfig>;
  stack: Awaited<ReturnType<typeof startLocalStack>>;
  pool: pg.Pool;
  outbox: OutboxStore;
  relay: OutboxRelay;
  pipeline: EventPipeline;
  /** Stops the relay, closes the outbox and the pool, stops the stack and removes its folder. */
  stop(): Promise<void>;
}

/** Starts the stack in a new temporary folder named after `prefix`; the relay is already running. */
export async function startBenchDeliveryStack(prefix: string): Promise<BenchDeliveryStack> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dataDir, 0o755); // embedded PostgreSQL may run as another user when the bench runs as root
  const logger = pino({ level: 'warn' });
  const stack = await startLocalStack({
    dataDir,
    env: { LOG_LEVEL: 'warn' },
    logger,
    source: { kind: 'none' },
    uiPort: null,
  });
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  // The stack's own outbox and status file, so `wa-lake status --data-dir` reads the bench as it reads `wa-lake dev`.
  const config = loadCollectorConfig({
    OUTBOX_PATH: stack.outboxPath,
    COLLECTOR_STATUS_PATH: stack.collectorStatusPath,
    AUTH_DIR: join(dataDir, 'auth'),
  });
  const outbox = OutboxStore.open({ path: config.OUTBOX_PATH });
  const relay = new OutboxRelay({
    client: stack.temporalClient,
    outbox,
    logger,
    alertSink: createWindowedAlertSink({ windowMs: config.ALERT_WINDOW_MS, logger }),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    batchSize: config.OUTBOX_RELAY_BATCH_SIZE,
    concurrency: config.OUTBOX_RELAY_CONCURRENCY,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    startTimeoutMs: config.OUTBOX_RELAY_START_TIMEOUT_MS,
    retryBaseDelayMs: config.OUTBOX_RELAY_RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: config.OUTBOX_RELAY_RETRY_MAX_DELAY_MS,
    requestEagerStart: true,
  });
  const pipeline = new EventPipeline({ outbox, logger, getSelfJid: () => null });
  relay.start();
  return {
    dataDir,
    logger,
    config,
    stack,
    pool,
    outbox,
    relay,
    pipeline,
    async stop() {
      await relay.stop();
      outbox.close();
      await pool.end();
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
