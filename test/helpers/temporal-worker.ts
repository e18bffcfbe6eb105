import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Alert, AlertSink } from '../../common/alert-sink.js';
import { createWindowedAlertSink } from '../../common/windowed-alert-sink.js';
import { runWorker, type RunningWorker } from '../../worker/run-worker.js';
import type { DeadLetterWorkflowInput, DeliverEventInput } from '../../workflows/contracts.js';
import { silentLogger } from './silent-logger.js';
import type { FakeIngest } from './fake-ingest.js';
import { sampleBody, testWorkerConfig, uniqueTaskQueue } from './temporal-env.js';

/** A worker started through the real `runWorker` on a test environment, with its alert sink exposed. */
export interface TestWorker {
  taskQueue: string;
  running: RunningWorker;
  /** Every alert the activities raised (sent or suppressed by the window). */
  raised: Alert[];
}

/**
 * Starts `runWorker` against `env` with a fresh unique task queue, the fake ingest as WEBHOOK_URL and its
 * `/alerts` as ALERT_WEBHOOK_URL (so alerts sent are requests the fake receives).
 */
export async function startTestWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  ingest: { webhookUrl: string; alertUrl: string } | FakeIngest,
  options: { env?: Record<string, string>; deadLetterStartInput?: DeadLetterWorkflowInput; taskQueue?: string } = {}
): Promise<TestWorker> {
  const taskQueue = options.taskQueue ?? uniqueTaskQueue();
  const logger = silentLogger();
  const config = testWorkerConfig({
    WEBHOOK_URL: ingest.webhookUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ALERT_WEBHOOK_URL: ingest.alertUrl,
    ...options.env,
  });
  const windowed = createWindowedAlertSink({
    windowMs: config.ALERT_WINDOW_MS,
    webhookUrl: config.ALERT_WEBHOOK_URL,
    logger,
  });
  const raised: Alert[] = [];
  const alertSink: AlertSink = {
    send(alert) {
      raised.push(alert);
      return windowed.send(alert);
    },
  };
  const running = await runWorker({
    config,
    logger,
    connection: env.nativeConnection,
    client: env.client,
    workflowBundle: bundle,
    alertSink,
    deadLetterStartInput: options.deadLetterStartInput,
  });
  return { taskQueue, running, raised };
}

/** A fresh `DeliverEventInput` with a random event_id. */
export function newDeliverInput(extra: Record<string, unknown> = {}): DeliverEventInput {
  const eventId = randomUUID();
  return { eventId, type: 'messages.upsert', chatJid: '120363000000000001@g.us', body: sampleBody(eventId, extra) };
}
