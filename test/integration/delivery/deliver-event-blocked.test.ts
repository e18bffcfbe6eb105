import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../../worker/run-worker.js';
import { WA_DELIVERY_STATE } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { bundleWorkflows, createTimeSkippingEnv, TEST_SECRET } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/temporal-poll.js';
import { newDeliverInput, startTestWorker } from '../../helpers/temporal-worker.js';

const OTHER_SECRET = 'rotated-secret-0123456789abcdefgh';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let ingest: FakeIngest | undefined;
let running: RunningWorker | undefined;

beforeAll(async () => {
  [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflows()]);
});
afterAll(async () => {
  await env?.teardown();
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await ingest?.close();
  ingest = undefined;
});

describe('deliverEvent while the whole endpoint is blocked', () => {
  it('alerts on a secret mismatch, keeps the event, and self-heals once the ingest accepts the secret', async () => {
    ingest = await startFakeIngest({ secrets: [OTHER_SECRET] });
    const fake = ingest;
    const worker = await startTestWorker(env, bundle, fake);
    running = worker.running;
    const input = newDeliverInput();
    const handle = await env.client.workflow.start(deliverEvent, {
      taskQueue: worker.taskQueue,
      workflowId: input.eventId,
      args: [input],
    });
    await waitUntil(
      'the workflow is marked auth_blocked',
      async () => (await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE) === 'auth_blocked'
    );
    // A day at the 5-minute cap is ~290 blocked turns: the loop must continue-as-new to bound history.
    await env.sleep('1 day');
    expect(fake.rows.size).toBe(0);
    fake.setSecrets([OTHER_SECRET, TEST_SECRET]);
    expect((await handle.result()).status).toBe(201);
    const lastRun = await env.client.workflow.getHandle(input.eventId).describe();
    expect(lastRun.runId).not.toBe(handle.firstExecutionRunId);
    expect(lastRun.historyLength).toBeLessThan(1_500);
    expect(fake.rows.size).toBe(1);
    expect(fake.alertBodies).toHaveLength(1);
    expect(worker.raised.length).toBeGreaterThan(1);
  });

  it('treats a redirect as misconfiguration: never follows it, alerts, and delivers once fixed', async () => {
    ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
    const fake = ingest;
    let isMisrouted = true;
    fake.script(() => (isMisrouted ? { status: 302, headers: { location: `${fake.baseUrl}/elsewhere` } } : undefined));
    const worker = await startTestWorker(env, bundle, fake);
    running = worker.running;
    const input = newDeliverInput();
    const handle = await env.client.workflow.start(deliverEvent, {
      taskQueue: worker.taskQueue,
      workflowId: input.eventId,
      args: [input],
    });
    await waitUntil(
      'the workflow is marked misconfigured',
      async () => (await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE) === 'misconfigured'
    );
    expect(worker.raised.map((alert) => alert.kind)).toContain('ingest_misconfigured');
    isMisrouted = false;
    expect((await handle.result()).status).toBe(201);
    expect(fake.requests.some((request) => request.path === '/elsewhere')).toBe(false);
    expect(fake.rows.size).toBe(1);
    expect((await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('delivered');
  });
});
