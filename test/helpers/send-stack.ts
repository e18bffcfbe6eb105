import { join } from 'node:path';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { loadCollectorConfig } from '../../collector/config.js';
import { startSessionSendSide, type SessionSendSide } from '../../collector/send/session-send-worker.js';
import type { AlertSink } from '../../common/alert-sink.js';
import { INGEST_PATH } from '../../common/ingest-body.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { runWorker, type RunningWorker } from '../../worker/run-worker.js';
import { startSendTestServer, type SendTestServer } from './send-test-server.js';
import { silentLogger } from './silent-logger.js';
import type { DevTemporal } from './temporal-dev.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS, testWorkerConfig } from './temporal-env.js';
import type { WhatsAppSendDouble } from './whatsapp-send-double.js';

/** Options of {@link startSendStack}. */
export interface SendStackOptions {
  databaseUrl: string;
  temporal: DevTemporal;
  bundle: WorkflowBundleWithSourceMap;
  taskQueue: string;
  /** The account whose session send worker the collector runs. */
  accountId: string;
  /** Folder of the collector's outbox (`outbox.sqlite`). */
  outboxDir: string;
  /** The WhatsApp socket the session send worker dispatches to. */
  socket: WhatsAppSendDouble;
  /** Worker settings beyond the shared ones (they win). */
  workerEnv?: Record<string, string>;
  /** The worker's alert sink; default the worker's own. */
  alertSink?: AlertSink;
}

/** The send path of one test file, every part with the payload codec on (ADR 0022). */
export interface SendStack {
  server: SendTestServer;
  worker: RunningWorker;
  sendSide: SessionSendSide;
  /** Stops the session send side, the worker, then the ingest API, in that order. */
  stop(): Promise<void>;
}

/**
 * Starts the whole send path against `options.temporal`: the ingest API with the send routes, a worker on
 * `taskQueue` delivering to that API (a customer's webhook may listen on 127.0.0.1), and the collector's session
 * send worker for `accountId` over `socket`. On a failed start, what started is stopped before the error is thrown.
 */
export async function startSendStack(options: SendStackOptions): Promise<SendStack> {
  const env = {
    TEMPORAL_ADDRESS: options.temporal.server.address,
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
  };
  const server = await startSendTestServer(options.databaseUrl, { env });
  let worker: RunningWorker | undefined;
  try {
    worker = await runWorker({
      config: testWorkerConfig({
        ...env,
        WEBHOOK_URL: `${server.url}${INGEST_PATH}`,
        SEND_WEBHOOK_ALLOW_HTTP: 'true',
        SEND_WEBHOOK_ALLOW_PRIVATE: 'true',
        ...options.workerEnv,
      }),
      logger: silentLogger(),
      workflowBundle: options.bundle,
      ...(options.alertSink ? { alertSink: options.alertSink } : {}),
    });
    const collector = loadCollectorConfig({ ...env, OUTBOX_PATH: join(options.outboxDir, 'outbox.sqlite') });
    const sendSide = startSessionSendSide({
      accountId: options.accountId,
      temporal: collector.temporal,
      client: options.temporal.client,
      dataConverter: createDataConverter(collector.PAYLOAD_ENCRYPTION_KEYS),
      outboxPath: collector.OUTBOX_PATH,
      getSocket: () => options.socket,
      logger: silentLogger(),
    });
    const running = worker;
    return {
      server,
      worker: running,
      sendSide,
      stop: async () => {
        await sendSide.stop();
        await running.stop();
        await server.close();
      },
    };
  } catch (err) {
    await worker?.stop();
    await server.close();
    throw err;
  }
}
