import type { Logger } from '../common/logger.js';
import { createPool, EventsRepository } from '../lake/index.js';
import { explainListenError } from '../common/listen-error.js';
import { buildApp } from './app.js';
import type { IngestConfig } from './config.js';
import { createIngestMetrics } from './metrics.js';
import { startRetentionSchedule } from './retention-schedule.js';
import { createSendComponents } from './send-wiring.js';
import { ingestStartWarnings } from './start-warnings.js';

/** A listening ingest API. */
export interface RunningIngestServer {
  /** Base URL, e.g. `http://127.0.0.1:8080` (the real port when `INGEST_PORT=0`). */
  url: string;
  /** Stops accepting, waits for in-flight requests, then ends the pool. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the ingest API: pool, app, listen on `config.host:config.port` (architecture.md §8). Migrations are
 * not run here (`wa-lake migrate`, architecture.md §8).
 *
 * @throws the listen error (port in use, bad host); the pool is ended first.
 */
export async function startIngestServer(options: {
  config: IngestConfig;
  logger: Logger;
}): Promise<RunningIngestServer> {
  const { config, logger } = options;
  const pool = createPool(config.databaseUrl, { max: config.databasePoolMax, logger });
  const metrics = createIngestMetrics({ withDefaultMetrics: true });
  const send = createSendComponents({ pool, config, logger, registry: metrics.registry });
  const app = buildApp({
    webhookSecrets: config.webhookSecrets,
    internalSignatureToleranceMs: config.internalSignatureToleranceMs,
    bodyLimitBytes: config.bodyLimitBytes,
    repository: new EventsRepository(pool, logger, {
      onInsertBatch: (rows) => metrics.insertBatchRows.observe(rows),
      batchLimits: { maxConcurrentBatches: config.concurrentStatements },
      erasureKey: config.erasureKey,
    }),
    metrics,
    logger,
    limits: config.limits,
    trustProxy: config.trustProxy,
    metricsToken: config.metricsToken,
    send: send.deps,
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await app.close().catch(() => undefined);
    await send.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw explainListenError(err, 'ingest API', config.host, config.port, 'INGEST_HOST/INGEST_PORT');
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const retention =
    config.retentionPeriodMs === null
      ? null
      : startRetentionSchedule({
          pool,
          periodMs: config.retentionPeriodMs,
          intervalMs: config.retentionIntervalMs,
          logger,
        });
  send.starter.startSweeper();
  let closing: Promise<void> | undefined;
  logger.info({ component: 'ingest-api', host: config.host, port }, 'ingest api listening');
  for (const warning of ingestStartWarnings(config)) {
    logger.warn({ component: 'ingest-api', key: warning.key }, warning.message);
  }
  return {
    url: `http://${host}:${port}`,
    close: () => {
      closing ??= (async () => {
        // The pool ends even when closing the server fails, so no idle client outlives the database
        // it talks to (the stack stops PostgreSQL right after this).
        try {
          await app.close();
          await retention?.stop();
          await send.close();
        } finally {
          await pool.end();
        }
        logger.info({ component: 'ingest-api' }, 'ingest api closed');
      })();
      return closing;
    },
  };
}
