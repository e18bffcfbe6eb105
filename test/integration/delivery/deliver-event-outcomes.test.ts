import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { countDeadLetters, listDeadLetters } from '../../../ops/index.js';
import { WA_DELIVERY_STATE, WA_LAST_HTTP_STATUS } from '../../../workflows/contracts.js';
import { useDeliveryTestbed } from '../../helpers/delivery-testbed.js';
import { decodeStoredPayload, TEST_SECRET } from '../../helpers/temporal-env.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

const testbed = useDeliveryTestbed();

describe('deliverEvent', () => {
  it('stores an event once, signs the exact body, and reports a second delivery as duplicate', async () => {
    const ingest = await testbed.startFakeIngest({ secrets: [TEST_SECRET] });
    const { taskQueue } = await testbed.startWorker(ingest);
    const input = newDeliverInput();
    const first = await testbed.executeDeliverEvent(taskQueue, input);
    const description = await testbed.env.client.workflow.getHandle(input.eventId).describe();
    // A second delivery of the same event runs under the same id (an input is bound to its workflow id, ADR 0026).
    const second = await testbed.executeDeliverEvent(taskQueue, input);
    expect(first).toEqual({ eventId: input.eventId, status: 201, outcome: 'stored' });
    expect(second).toEqual({ eventId: input.eventId, status: 200, outcome: 'duplicate' });
    expect(ingest.rows.get(input.eventId)).toBe(input.body);
    expect(
      ingest.requests.every((request) => request.isSignatureValid && request.contentType === 'application/json')
    ).toBe(true);
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('delivered');
    expect(description.typedSearchAttributes.get(WA_LAST_HTTP_STATUS)).toBe(201);
  });

  it('retries 5xx and a server that never answers, then stores one row', async () => {
    const ingest = await testbed.startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script((_request, index) =>
      index === 0 ? { status: 500 } : index === 1 ? 'hang' : index === 2 ? { status: 503 } : undefined
    );
    const { taskQueue } = await testbed.startWorker(ingest);
    const input = newDeliverInput();
    const result = await testbed.executeDeliverEvent(taskQueue, input);
    expect(result.status).toBe(201);
    expect(ingest.requests).toHaveLength(4);
    expect(ingest.rows.size).toBe(1);
  });

  it('dead-letters a 422 and fails the workflow non-retryably, keeping the body in its input', async () => {
    const ingest = await testbed.startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script(() => ({
      status: 422,
      body: { code: 'WA_ERR_VALIDATION', errors: { payload: 'must not be empty' } },
    }));
    const { taskQueue } = await testbed.startWorker(ingest);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(taskQueue, input);
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
    // Encrypted at rest (architecture.md §14); the test codec's keys read it back.
    expect(await decodeStoredPayload(started?.input?.payloads?.[0])).toMatchObject({ body: input.body });
    expect(ingest.rows.size).toBe(0);
    const page = await listDeadLetters(testbed.env.client, { pageSize: 100 });
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
    expect(await countDeadLetters(testbed.env.client)).toBeGreaterThanOrEqual(1);
  });
});
