import type { Client } from '@temporalio/client';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import { createLazyTemporalClient } from '../common/lazy-temporal-client.js';
import { createDataConverter } from '../common/temporal-data-converter.js';
import { probeTemporalConnection } from '../common/temporal-tls-probe.js';
import type { Logger } from '../common/logger.js';
import {
  IdempotencyClaims,
  OutboundMessagesRepository,
  SendAdminRepository,
  SendIntentBatchWriter,
  SendTemplatesRepository,
  StatusWebhookTargets,
} from '../lake/index.js';
import type { IngestAppDeps } from './app.js';
import type { IngestConfig } from './config.js';
import { ApiKeyCache } from './send/api-key-cache.js';
import { createSendMetrics, type SendMetrics } from './send/send-metrics.js';
import { SendWorkflowStarter } from './send/send-workflow-starter.js';

/** The ingest API's send components: route deps, the workflow starter (with its sweeper) and cleanup. */
export interface SendComponents {
  deps: NonNullable<IngestAppDeps['send']>;
  starter: SendWorkflowStarter;
  /** Stops the sweeper, waits for background starts, closes a connection opened here. */
  close(): Promise<void>;
}

/**
 * The send routes' database side: the API key cache, the Idempotency-Key claims (ADR 0030), the
 * group-committing accept writer and the messages repository, on `pool`. `onAccepted` runs after each commit of a new intent.
 */
export function createSendRouteDeps(options: {
  pool: pg.Pool;
  textMaxChars: number;
  onAccepted: NonNullable<IngestAppDeps['send']>['onAccepted'];
  metrics?: SendMetrics | undefined;
  /** Called with the number of requests each accept statement decided (benchmarks). */
  onIntentBatch?: (rows: number) => void;
}): NonNullable<IngestAppDeps['send']> & { messages: OutboundMessagesRepository } {
  const messages = new OutboundMessagesRepository(options.pool);
  return {
    apiKeys: new ApiKeyCache(new SendAdminRepository(options.pool)),
    claims: new IdempotencyClaims(options.pool),
    intents: new SendIntentBatchWriter(options.pool, messages, {}, options.onIntentBatch),
    messages,
    onAccepted: options.onAccepted,
    textMaxChars: options.textMaxChars,
    templates: new SendTemplatesRepository(options.pool),
    metrics: options.metrics,
  };
}

/**
 * Builds the send side of the ingest API (architecture.md §12). The Temporal connection is lazy, so the API
 * starts and accepts requests while Temporal is down; the sweeper starts the workflows later.
 *
 * @param options.client - an existing client (tests); otherwise one is made from `config.send`.
 * @param options.sweepBatchSize - rows per sweep (default 100).
 * @param options.registry - where the send metrics are registered (`wa_send_*`).
 */
export function createSendComponents(options: {
  pool: pg.Pool;
  config: Pick<IngestConfig, 'send'>;
  logger: Logger;
  client?: Client;
  sweepBatchSize?: number;
  /** Registry of `GET /metrics`; the send metrics are registered there when given. */
  registry?: Registry;
}): SendComponents {
  const { config } = options;
  // A client given by the caller is the caller's to close; a lazy one made here is closed here.
  const temporal = options.client
    ? { client: options.client, close: () => Promise.resolve() }
    : createLazyTemporalClient(config.send.temporal, createDataConverter(config.send.payloadEncryptionKeys));
  const { client } = temporal;
  const routeDeps = createSendRouteDeps({
    pool: options.pool,
    textMaxChars: config.send.textMaxChars,
    onAccepted: (message) => starter.startSoon(message),
    metrics: options.registry ? createSendMetrics(options.registry) : undefined,
  });
  const starter = new SendWorkflowStarter({
    client,
    repository: routeDeps.messages,
    taskQueue: config.send.taskQueue,
    logger: options.logger,
    startTimeoutMs: config.send.startTimeoutMs,
    sweepIntervalMs: config.send.sweepIntervalMs,
    sweepBatchSize: options.sweepBatchSize ?? 100,
    address: config.send.temporal.address,
    diagnoseUnreachable: () => probeTemporalConnection(config.send.temporal),
  });
  return {
    deps: {
      ...routeDeps,
      temporalReadiness: () => starter.readiness(),
      statusWebhooks: {
        targets: new StatusWebhookTargets(options.pool),
        encryptionKeys: config.send.payloadEncryptionKeys,
        disableAfterMs: config.send.webhookDisableAfterMs,
      },
    },
    starter,
    async close() {
      await starter.stop();
      await temporal.close();
    },
  };
}
