import { afterEach, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../../worker/run-worker.js';
import {
  DELIVER_EVENT_LEAN_VERSION,
  WA_DELIVERY_STATE,
  WA_LAST_HTTP_STATUS,
  type DeliverEventInput,
} from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest, type FakeIngestAction } from '../../helpers/fake-ingest.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import { newDeliverInput, startTestWorker } from '../../helpers/temporal-worker.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();
// ADR 0008: with the sender's workflowVersion the first POST runs as a local activity
// inside the first workflow task and a first-try delivery writes no search attribute; failures of that
// attempt keep every outcome of the contract (states, Retry-After, dead letters).

// temporal.api.enums.v1.EventType wire values.
const EVENT = {
  WORKFLOW_EXECUTION_STARTED: 1,
  WORKFLOW_EXECUTION_COMPLETED: 2,
  WORKFLOW_TASK_SCHEDULED: 5,
  WORKFLOW_TASK_STARTED: 6,
  WORKFLOW_TASK_COMPLETED: 7,
  ACTIVITY_TASK_STARTED: 11,
  MARKER_RECORDED: 25,
  UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: 40,
} as const;

let ingest: FakeIngest | undefined;
let running: RunningWorker | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await ingest?.close();
  ingest = undefined;
});

const leanInput = (): DeliverEventInput => ({ ...newDeliverInput(), workflowVersion: DELIVER_EVENT_LEAN_VERSION });

async function startLean(script: (index: number) => FakeIngestAction | undefined) {
  ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
  ingest.script((_request, index) => script(index));
  const worker = await startTestWorker(harness.env, harness.bundle, ingest);
  running = worker.running;
  const input = leanInput();
  const handle = await harness.env.client.workflow.start(deliverEvent, {
    taskQueue: worker.taskQueue,
    workflowId: input.eventId,
    args: [input],
  });
  return { input, handle };
}

describe('deliverEvent lean path (workflowVersion 2)', () => {
  it('delivers on the first try in one workflow task with six history events and no upsert', async () => {
    const { input, handle } = await startLean(() => undefined);
    await expect(handle.result()).resolves.toEqual({ eventId: input.eventId, status: 201, outcome: 'stored' });
    const types = ((await handle.fetchHistory()).events ?? []).map((event) => Number(event.eventType));
    expect(types).toEqual([
      EVENT.WORKFLOW_EXECUTION_STARTED,
      EVENT.WORKFLOW_TASK_SCHEDULED,
      EVENT.WORKFLOW_TASK_STARTED,
      EVENT.WORKFLOW_TASK_COMPLETED,
      EVENT.MARKER_RECORDED,
      EVENT.WORKFLOW_EXECUTION_COMPLETED,
    ]);
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBeUndefined();
    expect([...ingest!.rows.keys()]).toEqual([input.eventId]);
  });

  it('hands a transient first failure to the regular activity after its Retry-After, then ends delivered', async () => {
    const { input, handle } = await startLean((index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '7200' } } : undefined
    );
    expect((await handle.result()).status).toBe(201);
    const events = (await handle.fetchHistory()).events ?? [];
    const timeMs = (type: number): number =>
      Number(events.find((event) => Number(event.eventType) === type)?.eventTime?.seconds ?? 0) * 1_000;
    expect(timeMs(EVENT.ACTIVITY_TASK_STARTED) - timeMs(EVENT.WORKFLOW_EXECUTION_STARTED)).toBeGreaterThanOrEqual(
      7_200_000
    );
    expect(events.filter((event) => Number(event.eventType) === EVENT.UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toHaveLength(
      2
    );
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('delivered');
    expect(description.typedSearchAttributes.get(WA_LAST_HTTP_STATUS)).toBe(201);
    expect(ingest!.requests).toHaveLength(2);
    expect([...ingest!.rows.keys()]).toEqual([input.eventId]);
  });

  it('dead-letters a first-try 422 as before', async () => {
    const { handle } = await startLean(() => ({ status: 422, body: { code: 'WA_ERR_VALIDATION' } }));
    await expect(handle.result()).rejects.toThrow();
    const description = await handle.describe();
    expect(description.status.name).toBe('FAILED');
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('dead_lettered');
    expect(description.typedSearchAttributes.get(WA_LAST_HTTP_STATUS)).toBe(422);
  });

  it('marks a first-try 401 auth_blocked and delivers once the ingest accepts the secret', async () => {
    const { handle } = await startLean((index) => (index < 2 ? { status: 401 } : undefined));
    expect((await handle.result()).status).toBe(201);
    const upserts = ((await handle.fetchHistory()).events ?? []).filter(
      (event) => Number(event.eventType) === EVENT.UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
    );
    expect(upserts.length).toBeGreaterThanOrEqual(2);
    expect((await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('delivered');
  });
});
