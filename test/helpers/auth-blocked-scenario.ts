import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createWindowedAlertSink } from '../../common/windowed-alert-sink.js';
import { runWorker } from '../../worker/run-worker.js';
import { WA_DELIVERY_STATE } from '../../workflows/contracts.js';
import { deliverEvent } from '../../workflows/index.js';
import type { FakeIngest } from './fake-ingest.js';
import { silentLogger } from './silent-logger.js';
import type { DevTemporal } from './temporal-dev.js';
import { testWorkerConfig, TEST_SECRET, uniqueTaskQueue } from './temporal-env.js';
import { newDeliverInput } from './temporal-worker.js';

/** Resolves once `check` answers true; the caller's polling (vitest's `waitUntil` in a test, a loop in a bench). */
export type WaitFor = (check: () => boolean | Promise<boolean>, what: string) => Promise<void>;

/** What {@link runAuthBlockedScenario} observed; durations in ms. */
export interface AuthBlockedOutcome {
  eventCount: number;
  /** Alerts the workflows raised (before the window's deduplication) once every event was refused. */
  alertsRaised: number;
  /** Rows the ingest held while the worker signed with a secret it does not accept (must be 0). */
  rowsWhileBlocked: number;
  /** `WaDeliveryState` of the last event started, while blocked. */
  lastStateWhileBlocked: unknown;
  /** Rows once every workflow ended after the secret was fixed. */
  rows: number;
  /** Distinct event ids among the correctly signed requests. */
  signedEventIds: number;
  signedRequests: number;
  /** Workflows that ended `duplicate` (a signed retry of a row already stored). */
  duplicates: number;
  /** Alert webhook bodies the ingest's alert receiver got. */
  alertsSent: number;
  /** From the first start until every event was refused once. */
  refusedAllMs: number;
  /** From the fixed secret until every workflow ended. */
  deliveredAllMs: number;
}

/**
 * ADR 0002's scenario: `eventCount` deliverEvent workflows, started at once through the real worker (`runWorker`)
 * on a dev server, all refused by an ingest that does not accept the worker's secret; once every one was refused
 * and the last is marked `auth_blocked`, the ingest accepts the secret and every workflow is awaited. The test
 * asserts on the outcome at a small size; `bench/auth-blocked-at-scale.ts` runs it at the ADR's size.
 *
 * @param ingest - a fake ingest started with secrets that exclude `TEST_SECRET` (one of them `otherSecret`).
 */
export async function runAuthBlockedScenario(options: {
  temporal: DevTemporal;
  ingest: FakeIngest;
  bundle: WorkflowBundleWithSourceMap;
  eventCount: number;
  otherSecret: string;
  waitFor: WaitFor;
}): Promise<AuthBlockedOutcome> {
  const { temporal, ingest, eventCount, waitFor } = options;
  const taskQueue = uniqueTaskQueue('scale');
  const logger = silentLogger();
  const config = testWorkerConfig({
    WEBHOOK_URL: ingest.webhookUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ALERT_WEBHOOK_URL: ingest.alertUrl,
    TEMPORAL_ADDRESS: temporal.server.address,
  });
  let alertsRaised = 0;
  const windowed = createWindowedAlertSink({
    windowMs: config.ALERT_WINDOW_MS,
    webhookUrl: config.ALERT_WEBHOOK_URL,
    logger,
  });
  const worker = await runWorker({
    config,
    logger,
    workflowBundle: options.bundle,
    alertSink: { send: (alert) => ((alertsRaised += 1), windowed.send(alert)) },
  });
  try {
    const startedAtMs = Date.now();
    // All at once: the sooner the last one is refused, the shallower the earliest ones sit in their blocked
    // backoff when the fix lands.
    const handles = await Promise.all(
      Array.from({ length: eventCount }, () => newDeliverInput()).map((input) =>
        temporal.client.workflow.start(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] })
      )
    );
    const refusedIds = (): number =>
      new Set(ingest.requests.filter((request) => !request.isSignatureValid).map((request) => request.eventId)).size;
    await waitFor(() => refusedIds() === eventCount && alertsRaised >= eventCount, 'every event was refused');
    const refusedAllMs = Date.now() - startedAtMs;
    const lastHandle = handles[eventCount - 1];
    const lastState = async (): Promise<unknown> =>
      (await lastHandle?.describe())?.typedSearchAttributes.get(WA_DELIVERY_STATE);
    await waitFor(async () => (await lastState()) === 'auth_blocked', 'the last event is marked auth_blocked');
    const rowsWhileBlocked = ingest.rows.size;
    const lastStateWhileBlocked = await lastState();

    const fixedAtMs = Date.now();
    ingest.setSecrets([options.otherSecret, TEST_SECRET]);
    const results = await Promise.all(handles.map((handle) => handle.result()));
    const signed = ingest.requests.filter((request) => request.isSignatureValid);
    return {
      eventCount,
      alertsRaised,
      rowsWhileBlocked,
      lastStateWhileBlocked,
      rows: ingest.rows.size,
      signedEventIds: new Set(signed.map((request) => request.eventId)).size,
      signedRequests: signed.length,
      duplicates: results.filter((result) => result.outcome === 'duplicate').length,
      alertsSent: ingest.alertBodies.length,
      refusedAllMs,
      deliveredAllMs: Date.now() - fixedAtMs,
    };
  } finally {
    await worker.stop();
  }
}
