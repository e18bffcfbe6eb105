import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { addDeadLetterSignal, resolveDeadLettersSignal } from '../../workflows/contracts.js';
import { deadLetter, deliverEvent } from '../../workflows/index.js';
import { startFakeIngest, type FakeIngestAction } from './fake-ingest.js';
import { TEST_SECRET } from './temporal-env.js';
import { newDeliverInput, startTestWorker } from './temporal-worker.js';

/** One workflow path to record: how the fake ingest answers the n-th request. */
const DELIVERY_PATHS: Record<string, (index: number) => FakeIngestAction | undefined> = {
  'deliver-event-delivered': () => undefined,
  'deliver-event-transient-then-delivered': (index) => (index < 2 ? { status: 503 } : undefined),
  'deliver-event-dead-lettered': () => ({ status: 422, body: { code: 'WA_ERR_VALIDATION' } }),
  'deliver-event-auth-blocked-then-delivered': (index) => (index < 2 ? { status: 401 } : undefined),
  'deliver-event-misconfigured-then-delivered': (index) => (index < 1 ? { status: 404 } : undefined),
};

const { History } = temporal.api.history.v1;

// The SDK's historyToJSON/historyFromJSON fail in this install ("type must be a Type": @temporalio/common
// nests protobufjs 8 while @temporalio/proto uses 7), so fixtures are protobufjs `toObject` JSON
// (enums as names, int64 as strings, bytes as base64), read back with `fromObject`.
/** The history of one run as fixture JSON (protobufjs `toObject`), read back by {@link readHistoryFixture}. */
export async function historyJson(env: TestWorkflowEnvironment, workflowId: string, runId?: string): Promise<string> {
  const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return JSON.stringify(
    History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String }),
    null,
    1
  );
}

/** Reads a fixture written by {@link recordHistories} into a History the replayer accepts. */
export function readHistoryFixture(text: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(text) as Record<string, unknown>);
}

/**
 * Re-records the replay fixtures (`RECORD_HISTORIES=true`): runs each workflow path on the time-skipping
 * server and writes its history as JSON (protobufjs `toObject`) to `<dir>/<path>.json`. Source: ADR 0002.
 */
export async function recordHistories(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  dir: string
): Promise<void> {
  const ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
  const worker = await startTestWorker(env, bundle, ingest);
  try {
    for (const [name, decide] of Object.entries(DELIVERY_PATHS)) {
      let index = 0;
      ingest.script(() => decide(index++));
      const input = newDeliverInput();
      const handle = await env.client.workflow.start(deliverEvent, {
        taskQueue: worker.taskQueue,
        workflowId: input.eventId,
        args: [input],
      });
      await handle.result().catch(() => undefined);
      writeFileSync(join(dir, `${name}.json`), await historyJson(env, input.eventId));
    }
    const workflowId = `dead-letter-${randomUUID()}`;
    let firstRunId = '';
    for (let i = 0; i < 4; i += 1) {
      const started = await env.client.workflow.signalWithStart(deadLetter, {
        workflowId,
        taskQueue: worker.taskQueue,
        args: [{ continueAsNewAfterSignals: 3 }],
        signal: addDeadLetterSignal,
        signalArgs: [
          {
            eventId: randomUUID(),
            type: 'messages.upsert',
            chatJid: null,
            httpStatus: 422,
            responseExcerpt: '',
            bodySizeBytes: 1,
            deadLetteredAt: new Date(0).toISOString(),
            resolvedAt: null,
            resolution: null,
          },
        ],
      });
      firstRunId ||= started.signaledRunId;
      if (i === 1)
        await env.client.workflow
          .getHandle(workflowId)
          .signal(resolveDeadLettersSignal, { eventIds: [], reason: 'test' });
    }
    const firstRun = env.client.workflow.getHandle(workflowId, firstRunId);
    await firstRun.result().catch(() => undefined); // the first run closes by continuing as new
    writeFileSync(join(dir, 'dead-letter-continued-as-new.json'), await historyJson(env, workflowId, firstRunId));
    await env.client.workflow
      .getHandle(workflowId)
      .terminate('recorded')
      .catch(() => undefined);
  } finally {
    await worker.running.stop();
    await ingest.close();
  }
}
