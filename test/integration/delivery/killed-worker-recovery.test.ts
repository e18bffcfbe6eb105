import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, it, type OnTestFinishedHandler } from 'vitest';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { DELIVER_EVENT_LEAN_VERSION, type DeliverEventInput } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  TEST_SECRET,
  testWorkerConfig,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { waitUntil } from '../../helpers/wait-until.js';

// ADR 0008: a delivery in flight on a worker that is killed (SIGKILL of a real `wa-lake worker`
// process, no graceful shutdown) is retried within seconds by another worker, not after the 60 s
// start-to-close timeout: the regular attempt heartbeats (heartbeat timeout 5 s), and the lean path's
// local first attempt lives in a workflow task whose timeout (10 s) hands it to the next worker.

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
// temporal.api.enums.v1 wire values.
const ACTIVITY_TASK_STARTED = 11;
const WORKFLOW_TASK_TIMED_OUT = 8;
const TIMEOUT_TYPE_HEARTBEAT = 4;

let temporal: DevTemporal;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
});
afterAll(async () => {
  await temporal?.close();
});

/** Registers a cleanup that runs when the calling test finishes (the test context's, as concurrent tests need). */
type OnFinished = (cleanup: OnTestFinishedHandler) => void;

/** `wa-lake worker` as its own process, as an operator runs it; SIGKILLed after the test at the latest. */
function spawnWorkerProcess(taskQueue: string, webhookUrl: string, onFinished: OnFinished): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporal.server.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      WEBHOOK_URL: webhookUrl,
      WHATSAPP_WEBHOOK_SECRET: TEST_SECRET,
      // The test client encrypts workflow inputs with the test codec: the worker process needs the same keys.
      PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  onFinished(() => void child.kill('SIGKILL'));
  return child;
}

/**
 * Starts the delivery on a `wa-lake worker` process, SIGKILLs it while the first POST hangs, and starts a
 * worker in this process on the same queue. Everything it starts stops when the calling test finishes.
 */
async function killMidPostThenRecover(
  input: DeliverEventInput,
  onFinished: OnFinished
): Promise<{ handle: WorkflowHandle<typeof deliverEvent>; ingest: FakeIngest }> {
  const ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
  // Hooks run last-in, first-out: the worker below stops before the ingest it posts to closes.
  onFinished(() => ingest.close());
  // The first POST never gets an answer: it is in flight when its worker dies.
  ingest.script((_request, index) => (index === 0 ? 'hang' : undefined));
  const taskQueue = uniqueTaskQueue('killed-worker');
  const doomed = spawnWorkerProcess(taskQueue, ingest.webhookUrl, onFinished);
  const handle = await temporal.client.workflow.start(deliverEvent, {
    taskQueue,
    workflowId: input.eventId,
    args: [input],
  });
  await waitUntil(() => ingest.requests.length >= 1, { what: 'the first POST is in flight', timeoutMs: 120_000 });
  const exited = new Promise((resolve) => doomed.once('exit', resolve));
  doomed.kill('SIGKILL');
  await exited;
  const worker: RunningWorker = await runWorker({
    config: testWorkerConfig({
      TEMPORAL_ADDRESS: temporal.server.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      WEBHOOK_URL: ingest.webhookUrl,
    }),
    logger: silentLogger(),
    workflowBundle: bundle,
  });
  onFinished(() => worker.stop());
  return { handle, ingest };
}

// Each case waits out a server-side timeout (5 s heartbeat, 10 s workflow task) on its own task queue and fake
// ingest: the two run side by side.
describe.concurrent('a delivery in flight on a killed worker', () => {
  it('is retried after the heartbeat timeout, not the start-to-close timeout (regular attempt)', async ({
    expect,
    onTestFinished,
  }) => {
    const input = newDeliverInput(); // version 1: every attempt is a regular activity
    const { handle, ingest } = await killMidPostThenRecover(input, onTestFinished);
    await expect(handle.result()).resolves.toMatchObject({ eventId: input.eventId, status: 201 });
    const started = ((await handle.fetchHistory()).events ?? []).find(
      (event) => Number(event.eventType) === ACTIVITY_TASK_STARTED
    )?.activityTaskStartedEventAttributes;
    expect(started?.attempt).toBeGreaterThanOrEqual(2);
    expect(Number(started?.lastFailure?.timeoutFailureInfo?.timeoutType)).toBe(TIMEOUT_TYPE_HEARTBEAT);
    expect([...ingest.rows.keys()]).toEqual([input.eventId]);
  });

  it('runs the local first attempt again after the workflow task timeout (lean path)', async ({
    expect,
    onTestFinished,
  }) => {
    const input = { ...newDeliverInput(), workflowVersion: DELIVER_EVENT_LEAN_VERSION };
    const { handle, ingest } = await killMidPostThenRecover(input, onTestFinished);
    await expect(handle.result()).resolves.toMatchObject({ eventId: input.eventId, status: 201 });
    const types = ((await handle.fetchHistory()).events ?? []).map((event) => Number(event.eventType));
    expect(types).toContain(WORKFLOW_TASK_TIMED_OUT);
    expect(types).not.toContain(ACTIVITY_TASK_STARTED);
    expect([...ingest.rows.keys()]).toEqual([input.eventId]);
  });
});
