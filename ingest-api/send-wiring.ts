import type { Client } from '@temporalio/client';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import { createLazyTemporalClient } from '../common/lazy-temporal-client.js';
import { createDataConverter } from '../common/temporal-data-converter.js';
import type { Logger } from '../common/logger.js';
import type { IngestAppDeps } from './app.js';
import type { IngestConfig } from './config.js';
import { OutboundMessagesRepository } from './db/outbound-messages-repository.js';
import { SendAdminRepository } from './db/send-admin-repository.js';
import { createSendMetrics } from './send/send-metrics.js';
import { SendWorkflowStarter } from './send/send-workflow-starter.js';

/** The ingest API's send components: route deps, the workflow starter (with its sweeper) and cleanup. */
export interface SendComponents {
  deps: NonNullable<IngestAppDeps['send']>;
  starter: SendWorkflowStarter;
  /** Stops the sweeper, waits for background starts, closes a connection opened here. */
  close(): Promise<void>;
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
    : createLazyTemporalClient(
        config.send.temporalAddress,
        config.send.temporalNamespace,
        createDataConverter(config.send.payloadEncryptionKeys)
      );
  const { client } = temporal;
  const messages = new OutboundMessagesRepository(options.pool);
  const starter = new SendWorkflowStarter({
    client,
    repository: messages,
    taskQueue: config.send.taskQueue,
    logger: options.logger,
    startTimeoutMs: config.send.startTimeoutMs,
    sweepIntervalMs: config.send.sweepIntervalMs,
    sweepBatchSize: options.sweepBatchSize ?? 100,
  });
  return {
    deps: {
      admin: new SendAdminRepository(options.pool),
      messages,
      onAccepted: (message) => starter.startSoon(message),
      textMaxChars: config.send.textMaxChars,
      metrics: options.registry ? createSendMetrics(options.registry) : undefined,
    },
    starter,
    async close() {
      await starter.stop();
      await temporal.close();
    },
  };
}
