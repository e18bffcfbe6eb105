import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../helpers/silent-logger.js';
import { runWorker } from '../../../worker/run-worker.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest } from '../../helpers/fake-ingest.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { bundleWorkflows, testWorkerConfig, TEST_SECRET, uniqueTaskQueue } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

// On the real dev server: after a graceful shutdown the next workflow task must leave the stopped
// worker's sticky queue, which the time-skipping test server never does.
let temporal: DevTemporal;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
});
afterAll(async () => {
  await temporal?.close();
});

describe('worker lifecycle', () => {
  it('lets a POST in flight finish on shutdown (the grace time exceeds the HTTP timeout) and loses nothing', async () => {
    const ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script(() => ({ delayMs: 1_500 }));
    const taskQueue = uniqueTaskQueue('lifecycle');
    const config = testWorkerConfig({
      WEBHOOK_URL: ingest.webhookUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_ADDRESS: temporal.server.address,
      HTTP_TIMEOUT_MS: '3000',
      WORKER_SHUTDOWN_GRACE_TIME_MS: '6000',
    });
    const start = () => runWorker({ config, logger: silentLogger(), workflowBundle: bundle });
    try {
      const first = await start();
      const input = newDeliverInput();
      const handle = await temporal.client.workflow.start(deliverEvent, {
        taskQueue,
        workflowId: input.eventId,
        args: [input],
      });
      await waitUntil(() => ingest.requests.length === 1, { what: 'the POST is in flight' });
      // What SIGTERM does in `wa-lake worker` (runUntilTerminated → stop()).
      await first.stop();
      expect(ingest.rows.has(input.eventId)).toBe(true);

      const second = await start();
      try {
        // 201 stored (not a 200 duplicate): the first attempt completed and was reported, not cut and retried.
        expect(await handle.result()).toMatchObject({ status: 201, outcome: 'stored' });
        expect(ingest.requests).toHaveLength(1);
      } finally {
        await second.stop();
      }
    } finally {
      await ingest.close();
    }
  });
});
