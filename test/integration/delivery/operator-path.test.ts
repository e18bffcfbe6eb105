import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../helpers/silent-logger.js';
import { resolveTemporalCliPath } from '../../../dev-stack/temporal-binaries.js';
import { countDeadLetters, listDeadLetters, replayDeadLetters } from '../../../ops/index.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { DELIVER_EVENT_LEAN_VERSION, type DeliverEventInput } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { bundleWorkflows, testWorkerConfig, TEST_SECRET, uniqueTaskQueue } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { readRunbookCommand, runBinary, splitShellWords } from '../../helpers/temporal-runbook.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

// ADR 0002 against a real dev server: visibility queries exactly as typed into the Web UI,
// the runbook's `temporal workflow reset` with the real binary, and `wa-lake dlq list|replay` (ops/).
let temporal: DevTemporal;
let ingest: FakeIngest;
let worker: RunningWorker;
let taskQueue: string;
const rejectedIds = new Set<string>();
const refusedIds = new Set<string>();

beforeAll(async () => {
  [temporal, ingest] = await Promise.all([startDevTemporal(), startFakeIngest({ secrets: [TEST_SECRET] })]);
  ingest.script((request) =>
    refusedIds.has(request.eventId)
      ? { status: 401, body: { code: 'WA_ERR_BAD_SIGNATURE' } }
      : rejectedIds.has(request.eventId)
        ? { status: 422, body: { code: 'WA_ERR_VALIDATION' } }
        : undefined
  );
  taskQueue = uniqueTaskQueue('operator');
  worker = await runWorker({
    config: testWorkerConfig({
      WEBHOOK_URL: ingest.webhookUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ALERT_WEBHOOK_URL: ingest.alertUrl,
      TEMPORAL_ADDRESS: temporal.server.address,
    }),
    logger: silentLogger(),
    workflowBundle: await bundleWorkflows(),
  });
});
afterAll(async () => {
  await worker?.stop();
  await ingest?.close();
  await temporal?.close();
});

async function startDeadLettered(): Promise<DeliverEventInput> {
  const input = newDeliverInput();
  rejectedIds.add(input.eventId);
  const failure = await temporal.client.workflow
    .execute(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] })
    .catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(Error);
  return input;
}

async function listIds(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of temporal.client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}

describe('operator path', () => {
  it("finds auth_blocked and dead_lettered events with the Web UI's query text", async () => {
    const blocked = newDeliverInput();
    refusedIds.add(blocked.eventId);
    await temporal.client.workflow.start(deliverEvent, { taskQueue, workflowId: blocked.eventId, args: [blocked] });
    const rejected = await startDeadLettered();
    await waitUntil(
      async () => {
        const [authBlocked, deadLettered] = await Promise.all([
          listIds("WaDeliveryState = 'auth_blocked'"),
          listIds("WaDeliveryState = 'dead_lettered'"),
        ]);
        return authBlocked.includes(blocked.eventId) && deadLettered.includes(rejected.eventId);
      },
      { what: 'visibility shows both' }
    );
    expect(
      await listIds(
        `WaDeliveryState = 'dead_lettered' AND WaLastHttpStatus = 422 AND WorkflowId = '${rejected.eventId}'`
      )
    ).toEqual([rejected.eventId]);
    await temporal.client.workflow.getHandle(blocked.eventId).terminate('test done');
  });

  it("finds a first-try delivery with the runbook's 'delivered' query, not with a failure-state query", async () => {
    const input = { ...newDeliverInput(), workflowVersion: DELIVER_EVENT_LEAN_VERSION };
    await temporal.client.workflow.execute(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] });
    const delivered = `ExecutionStatus = 'Completed' AND WorkflowType = 'deliverEvent' AND WorkflowId = '${input.eventId}'`;
    await waitUntil(async () => (await listIds(delivered)).includes(input.eventId), {
      what: 'visibility shows the delivery',
    });
    const failureStates = "WaDeliveryState IN ('delivering', 'auth_blocked', 'misconfigured', 'dead_lettered')";
    expect(await listIds(`${failureStates} AND WorkflowId = '${input.eventId}'`)).toEqual([]);
  });

  it("replays a dead-lettered event with the runbook's exact temporal workflow reset command", async () => {
    const input = await startDeadLettered();
    expect((await listDeadLetters(temporal.client, { pageSize: 100 })).entries.map((entry) => entry.eventId)).toContain(
      input.eventId
    );
    rejectedIds.delete(input.eventId); // the ingest is fixed
    const command = readRunbookCommand('reset-one').replace('<event_id>', input.eventId);
    const [binary, ...args] = splitShellWords(command);
    expect(binary).toBe('temporal');
    await runBinary(resolveTemporalCliPath(process.env), args, { TEMPORAL_ADDRESS: temporal.server.address });

    expect(await temporal.client.workflow.getHandle(input.eventId).result()).toMatchObject({
      status: 201,
      outcome: 'stored',
    });
    expect(ingest.rows.get(input.eventId)).toBe(input.body);
    await waitUntil(
      async () => {
        const page = await listDeadLetters(temporal.client, { pageSize: 100, includeResolved: true });
        return page.entries.find((entry) => entry.eventId === input.eventId)?.resolvedAt != null;
      },
      { what: 'the dead-letter entry is resolved' }
    );
  });

  it('replays every open dead letter with dlq replay --all, keeping workflowId = event_id', async () => {
    const openBefore = await countDeadLetters(temporal.client);
    const input = await startDeadLettered();
    expect(await countDeadLetters(temporal.client)).toBe(openBefore + 1);
    rejectedIds.clear(); // the ingest is fixed for every event
    const report = await replayDeadLetters(temporal.client, { all: true }, 'ingest fixed');
    expect(report.replayed.map((entry) => entry.eventId)).toContain(input.eventId);
    expect(report.replayed).toHaveLength(openBefore + 1);
    expect(report.failed).toEqual([]);
    for (const { eventId } of report.replayed) {
      expect(await temporal.client.workflow.getHandle(eventId).result()).toMatchObject({ status: 201 });
      expect(ingest.rows.has(eventId)).toBe(true);
    }
    await waitUntil(async () => (await countDeadLetters(temporal.client)) === 0, {
      what: 'no open dead letters remain',
    });
  });
});
