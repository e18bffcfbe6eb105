import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../helpers/silent-logger.js';
import { createWindowedAlertSink } from '../../../common/windowed-alert-sink.js';
import { runWorker } from '../../../worker/run-worker.js';
import { WA_DELIVERY_STATE } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { bundleWorkflows, testWorkerConfig, TEST_SECRET, uniqueTaskQueue } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

// ADR 0002 at its stated size. It runs on the real dev server: the time-skipping test server
// loses its time lock under hundreds of concurrent activity failures ("Unbalanced lock and unlock calls").
const EVENT_COUNT = 500;
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
});
afterAll(async () => {
  await ingest?.close();
  await temporal?.close();
});

describe('deliverEvent behind a wrong secret at scale', () => {
  it(`sends one alert per window for ${EVENT_COUNT} blocked events, then delivers all of them with no operator action`, async () => {
    const taskQueue = uniqueTaskQueue('scale');
    const logger = silentLogger();
    const config = testWorkerConfig({
      WEBHOOK_URL: ingest.webhookUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ALERT_WEBHOOK_URL: ingest.alertUrl,
      TEMPORAL_ADDRESS: temporal.server.address,
    });
    let raisedCount = 0;
    const windowed = createWindowedAlertSink({
      windowMs: config.ALERT_WINDOW_MS,
      webhookUrl: config.ALERT_WEBHOOK_URL,
      logger,
    });
    const worker = await runWorker({
      config,
      logger,
      workflowBundle: bundle,
      alertSink: { send: (alert) => ((raisedCount += 1), windowed.send(alert)) },
    });
    try {
      // All at once: the sooner the last one is refused, the shallower the earliest ones sit in their blocked
      // backoff when the fix lands.
      const handles = await Promise.all(
        Array.from({ length: EVENT_COUNT }, () => newDeliverInput()).map((input) =>
          temporal.client.workflow.start(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] })
        )
      );
      const refusedIds = (): number =>
        new Set(ingest.requests.filter((request) => !request.isSignatureValid).map((request) => request.eventId)).size;
      await waitUntil(() => refusedIds() === EVENT_COUNT && raisedCount >= EVENT_COUNT, {
        what: 'every event was refused',
        timeoutMs: 400_000,
      });
      const lastHandle = handles[EVENT_COUNT - 1];
      await waitUntil(
        async () => (await lastHandle?.describe())?.typedSearchAttributes.get(WA_DELIVERY_STATE) === 'auth_blocked',
        { what: 'the last event is marked auth_blocked' }
      );
      expect(ingest.rows.size).toBe(0);

      ingest.setSecrets([OTHER_SECRET, TEST_SECRET]);
      const results = await Promise.all(handles.map((handle) => handle.result()));
      expect(ingest.rows.size).toBe(EVENT_COUNT);
      // At-least-once (architecture.md §1): on a loaded host the tests' 1 s HTTP timeout can expire after the row
      // was stored, and the retry is answered 200 duplicate. Every duplicate outcome must come from such
      // a repeated signed request, never from a row that was not stored.
      const signed = ingest.requests.filter((request) => request.isSignatureValid);
      const duplicates = results.filter((result) => result.outcome === 'duplicate').length;
      expect(new Set(signed.map((request) => request.eventId)).size).toBe(EVENT_COUNT);
      expect(duplicates).toBeLessThanOrEqual(signed.length - EVENT_COUNT);
      expect(ingest.alertBodies).toHaveLength(1);
    } finally {
      await worker.stop();
    }
    // Real time on a dev server: the earliest events sit in their 40–80 s blocked backoff when the fix lands; a
    // loaded machine runs 500 workflows several times slower, which a generous bound absorbs without a retry.
  }, 900_000);
});
