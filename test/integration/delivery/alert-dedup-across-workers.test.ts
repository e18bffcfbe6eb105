import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { bundleWorkflows, testWorkerConfig, uniqueTaskQueue } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

// One alert across workers, on the real dev server (real time: the blocked loop retries after 5 s, then 10 s).
const OTHER_SECRET = 'rotated-secret-0123456789abcdefgh';

let temporal: DevTemporal;
let ingest: FakeIngest;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [temporal, ingest, bundle] = await Promise.all([
    startDevTemporal(),
    startFakeIngest({ secrets: [OTHER_SECRET] }),
    bundleWorkflows(),
  ]);
}, 120_000);
afterAll(async () => {
  await ingest?.close();
  await temporal?.close();
});

/** A worker as `wa-lake worker` runs it: its default alert sink (windowed, behind the Temporal ledger). */
function startWorker(taskQueue: string): Promise<RunningWorker> {
  const config = testWorkerConfig({
    WEBHOOK_URL: ingest.webhookUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ALERT_WEBHOOK_URL: ingest.alertUrl,
    TEMPORAL_ADDRESS: temporal.server.address,
  });
  return runWorker({ config, logger: silentLogger(), workflowBundle: bundle });
}

const unauthorizedAlerts = (taskQueue: string): number =>
  ingest.alertBodies.filter((body) => body.content.includes('ingest_unauthorized') && body.content.includes(taskQueue))
    .length;
const refusals = (eventId: string): number =>
  ingest.requests.filter((request) => request.eventId === eventId && !request.isSignatureValid).length;

async function startBlocked(taskQueue: string): Promise<string> {
  const input = newDeliverInput();
  await temporal.client.workflow.start(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] });
  return input.eventId;
}

async function terminate(eventIds: string[]): Promise<void> {
  await Promise.all(
    eventIds.map((id) =>
      temporal.client.workflow
        .getHandle(id)
        .terminate('test done')
        .catch(() => undefined)
    )
  );
}

describe('one ingest_unauthorized alert per window across workers and restarts', () => {
  it('a worker restarted inside the window sends no second alert', async () => {
    const taskQueue = uniqueTaskQueue('alert-restart');
    const eventIds: string[] = [];
    let worker = await startWorker(taskQueue);
    try {
      eventIds.push(await startBlocked(taskQueue));
      await waitUntil(() => unauthorizedAlerts(taskQueue) === 1, {
        what: 'the first worker alerted',
        timeoutMs: 60_000,
      });
      await worker.stop();
      worker = await startWorker(taskQueue);
      // A new event and the old one are both refused again (each blocked turn raises the alert).
      eventIds.push(await startBlocked(taskQueue));
      await waitUntil(() => eventIds.every((id) => refusals(id) >= 2), {
        what: 'both events were refused twice by the restarted worker',
        timeoutMs: 90_000,
      });
      expect(unauthorizedAlerts(taskQueue)).toBe(1);
    } finally {
      await terminate(eventIds);
      await worker.stop();
    }
  }, 180_000);

  it('two workers on one task queue send one alert', async () => {
    const taskQueue = uniqueTaskQueue('alert-two');
    const workers = await Promise.all([startWorker(taskQueue), startWorker(taskQueue)]);
    const eventIds: string[] = [];
    try {
      for (let i = 0; i < 20; i++) eventIds.push(await startBlocked(taskQueue));
      await waitUntil(() => eventIds.every((id) => refusals(id) >= 2), {
        what: 'every event was refused twice',
        timeoutMs: 120_000,
      });
      expect(unauthorizedAlerts(taskQueue)).toBe(1);
    } finally {
      await terminate(eventIds);
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  }, 180_000);
});
