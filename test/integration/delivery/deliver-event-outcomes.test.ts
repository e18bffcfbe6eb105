import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countDeadLetters, listDeadLetters } from '../../../ops/index.js';
import type { RunningWorker } from '../../../worker/run-worker.js';
import { WA_DELIVERY_STATE, WA_LAST_HTTP_STATUS } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import {
  bundleWorkflows,
  createTimeSkippingEnv,
  decodeStoredPayload,
  TEST_SECRET,
} from '../../helpers/temporal-env.js';
import { newDeliverInput, startTestWorker } from '../../helpers/temporal-worker.js';

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let ingest: FakeIngest;
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
});

async function startWorker(): Promise<string> {
  const worker = await startTestWorker(env, bundle, ingest);
  running = worker.running;
  return worker.taskQueue;
}

describe('deliverEvent', () => {
  it('stores an event once, signs the exact body, and reports a second delivery as duplicate', async () => {
    ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
    const taskQueue = await startWorker();
    const input = newDeliverInput();
    const first = await env.client.workflow.execute(deliverEvent, {
      taskQueue,
      workflowId: input.eventId,
      args: [input],
    });
    const second = await env.client.workflow.execute(deliverEvent, {
      taskQueue,
      workflowId: `${input.eventId}-again`,
      args: [input],
    });
    expect(first).toEqual({ eventId: input.eventId, status: 201, outcome: 'stored' });
    expect(second).toEqual({ eventId: input.eventId, status: 200, outcome: 'duplicate' });
    expect(ingest.rows.get(input.eventId)).toBe(input.body);
    expect(
      ingest.requests.every((request) => request.isSignatureValid && request.contentType === 'application/json')
    ).toBe(true);
    const description = await env.client.workflow.getHandle(input.eventId).describe();
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('delivered');
    expect(description.typedSearchAttributes.get(WA_LAST_HTTP_STATUS)).toBe(201);
  });

  it('retries 5xx and a server that never answers, then stores one row', async () => {
    ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script((_request, index) =>
      index === 0 ? { status: 500 } : index === 1 ? 'hang' : index === 2 ? { status: 503 } : undefined
    );
    const taskQueue = await startWorker();
    const input = newDeliverInput();
    const result = await env.client.workflow.execute(deliverEvent, {
      taskQueue,
      workflowId: input.eventId,
      args: [input],
    });
    expect(result.status).toBe(201);
    expect(ingest.requests).toHaveLength(4);
    expect(ingest.rows.size).toBe(1);
  });

  it('dead-letters a 422 and fails the workflow non-retryably, keeping the body in its input', async () => {
    ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script(() => ({
      status: 422,
      body: { code: 'WA_ERR_VALIDATION', errors: { payload: 'must not be empty' } },
    }));
    const taskQueue = await startWorker();
    const input = newDeliverInput();
    const handle = await env.client.workflow.start(deliverEvent, {
      taskQueue,
      workflowId: input.eventId,
      args: [input],
    });
    const failure = await handle.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('IngestRejectedError');
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('dead_lettered');
    expect(description.typedSearchAttributes.get(WA_LAST_HTTP_STATUS)).toBe(422);
    const history = await handle.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    // Encrypted at rest (DESIGN §14); the test codec's keys read it back.
    expect(await decodeStoredPayload(started?.input?.payloads?.[0])).toMatchObject({ body: input.body });
    expect(ingest.rows.size).toBe(0);
    const page = await listDeadLetters(env.client, { pageSize: 100 });
    expect(page.entries.find((entry) => entry.eventId === input.eventId)).toMatchObject({
      type: input.type,
      chatJid: input.chatJid,
      httpStatus: 422,
      bodySizeBytes: Buffer.byteLength(input.body),
      resolvedAt: null,
    });
    expect(page.entries.find((entry) => entry.eventId === input.eventId)?.responseExcerpt).toContain(
      'WA_ERR_VALIDATION'
    );
    expect(await countDeadLetters(env.client)).toBeGreaterThanOrEqual(1);
  });
});
