import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterEach } from 'vitest';
import type { DeliverEventInput, DeliverEventResult } from '../../workflows/contracts.js';
import { deliverEvent } from '../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from './fake-ingest.js';
import { useTemporalTestbed } from './temporal-testbed.js';
import { startTestWorker, type TestWorker } from './temporal-worker.js';

/** Where a test worker sends events and alerts: a fake ingest, or bare URLs (e.g. a port nobody listens on). */
export type IngestTarget = FakeIngest | { webhookUrl: string; alertUrl: string };

/** Options for {@link DeliveryTestbed.startWorker}, passed through to `startTestWorker`. */
export type TestWorkerOptions = Parameters<typeof startTestWorker>[3];

/**
 * The delivery tests' shared lifecycle on the one Temporal harness (`temporal-testbed.ts`): its time-skipping
 * environment and workflow bundle, a real worker with a fresh task queue per test, and everything a test starts
 * (workers, fake ingests, deferred closers) cleaned up after that test.
 */
export interface DeliveryTestbed {
  /** The file's time-skipping environment (throws before `beforeAll` has run). */
  readonly env: TestWorkflowEnvironment;
  /** The file's workflow bundle of `workflows/index.ts` (throws before `beforeAll` has run). */
  readonly bundle: WorkflowBundleWithSourceMap;
  /** Starts a fake ingest that is closed after the current test. */
  startFakeIngest(options: Parameters<typeof startFakeIngest>[0]): Promise<FakeIngest>;
  /** Starts the real `runWorker` on a unique task queue; it is stopped after the current test. */
  startWorker(target: IngestTarget, options?: TestWorkerOptions): Promise<TestWorker>;
  /** Starts `deliverEvent` with `workflowId = input.eventId` (or `options.workflowId`) on `taskQueue`. */
  startDeliverEvent(
    taskQueue: string,
    input: DeliverEventInput,
    options?: { workflowId?: string }
  ): Promise<WorkflowHandleWithFirstExecutionRunId<typeof deliverEvent>>;
  /** Like {@link startDeliverEvent}, then waits for the result (rejects with `WorkflowFailedError`). */
  executeDeliverEvent(
    taskQueue: string,
    input: DeliverEventInput,
    options?: { workflowId?: string }
  ): Promise<DeliverEventResult>;
  /** Runs `close` after the current test, once its workers have stopped (closers run last-in, first-out). */
  defer(close: () => Promise<unknown>): void;
}

/**
 * Registers the `beforeAll`/`afterEach`/`afterAll` hooks of a delivery test file and returns its testbed.
 * Call once at the top level of the file. Workers stop before the deferred closers run, so no activity is
 * in flight when the ingest it talks to goes away; the environment is torn down after the file's own
 * `afterAll` hooks registered later (vitest runs after-hooks as a stack).
 */
export function useDeliveryTestbed(): DeliveryTestbed {
  const harness = useTemporalTestbed();
  let workers: TestWorker[] = [];
  // Registered after the harness's hooks, so it runs before them: workers stop before the closers run.
  afterEach(async () => {
    const stopping = workers;
    workers = [];
    await Promise.all(stopping.map((worker) => worker.running.stop()));
  });

  const testbed: DeliveryTestbed = {
    get env() {
      return harness.env;
    },
    get bundle() {
      return harness.bundle;
    },
    async startFakeIngest(options) {
      const ingest = await startFakeIngest(options);
      harness.defer(() => ingest.close());
      return ingest;
    },
    async startWorker(target, options) {
      const worker = await startTestWorker(harness.env, harness.bundle, target, options);
      workers.push(worker);
      return worker;
    },
    startDeliverEvent(taskQueue, input, options = {}) {
      return harness.env.client.workflow.start(deliverEvent, {
        taskQueue,
        workflowId: options.workflowId ?? input.eventId,
        args: [input],
      });
    },
    async executeDeliverEvent(taskQueue, input, options) {
      return (await testbed.startDeliverEvent(taskQueue, input, options)).result();
    },
    defer(close) {
      harness.defer(close);
    },
  };
  return testbed;
}
