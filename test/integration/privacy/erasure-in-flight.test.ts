import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { replayDeadLetters } from '../../../ops/index.js';
import type { DeliverEventInput } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { startFakeIngest } from '../../helpers/fake-ingest.js';
import { startTestIngestServer } from '../../helpers/ingest-test-server.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import {
  dumpLakeText,
  messageBody,
  metadataBody,
  newGroupJid,
  newMember,
  reactionBody,
} from '../../helpers/lake-privacy-fixtures.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';
import { startTestWorker } from '../../helpers/temporal-worker.js';
import { waitUntil } from '../../helpers/wait-until.js';

const harness = useTemporalTestbed({ server: 'local' });
const UNUSED = 'http://127.0.0.1:9/unused';

// ADR 0027: deliveries `forget` cannot reach (running deliverEvent workflows, dead letters replayed later) reach the
// lake, which stores them as `forget` left it. `forget` counts the running ones and prints the query.
describe('forget and the deliveries it cannot reach', () => {
  const fresh = useFreshLake();
  const group = newGroupJid();
  const erased = newMember();
  const other = newMember();
  const words = `in flight words ${randomUUID()}`;
  const traces = [erased.phone, erased.lid.split('@')[0] ?? '', words, `Name of ${erased.phone}`];
  const inputOf = (body: string): DeliverEventInput => ({
    eventId: randomUUID(),
    type: (JSON.parse(body) as { type: string }).type,
    chatJid: group,
    body,
  });
  const forget = () =>
    runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath: join('/nonexistent', randomUUID()),
      temporalClient: harness.env.client,
      participant: `+${erased.phone}`,
      requestedBy: 'dpo@example.org',
    });

  it('a delivery running during forget, delivered after it, leaves no trace of the member', async () => {
    const firstId = randomUUID();
    for (const body of [
      metadataBody(group, [erased, other], new Date().toISOString()),
      messageBody(group, erased, 'before forget', new Date(), { id: firstId }),
    ])
      expect(await fresh.lake.store(randomUUID(), body)).toBe('stored');
    const taskQueue = harness.taskQueue('erasure-in-flight');
    const inputs = [
      inputOf(messageBody(group, erased, words, new Date())),
      inputOf(reactionBody(group, erased, { id: firstId, author: erased }, new Date())),
    ];
    // No worker yet: the deliveries stay Running, as with a stopped worker after `wa-lake replay`.
    const handles = await Promise.all(
      inputs.map((input) =>
        harness.env.client.workflow.start(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] })
      )
    );
    const running = `WorkflowType = 'deliverEvent' AND ExecutionStatus = 'Running'`;
    await waitUntil(async () => (await harness.env.client.workflow.count(running)).count >= inputs.length, {
      what: 'visibility shows the running deliveries',
    });

    const report = await forget();
    expect(report.runningDeliveries).toBeGreaterThanOrEqual(inputs.length);
    expect(report.notReached.join('\n')).toContain(`deliverEvent workflows still running: ${report.runningDeliveries}`);
    expect(report.notReached.join('\n')).toContain(`--query "${running}"`);

    const server = await startTestIngestServer(fresh.url, { secrets: [TEST_SECRET] });
    harness.defer(() => server.close());
    const worker = await startTestWorker(
      harness.env,
      harness.bundle,
      { webhookUrl: `${server.url}${INGEST_PATH}`, alertUrl: UNUSED },
      { taskQueue }
    );
    harness.defer(() => worker.running.stop());
    // A busy machine can time an attempt out after its commit; the retry then reads `duplicate`: stored once either way.
    for (const handle of handles) expect(['stored', 'duplicate']).toContain((await handle.result()).outcome);

    const text = await dumpLakeText(fresh.lake.pool);
    for (const trace of traces) expect(text).not.toContain(trace);
    expect(text).toContain(other.phone);
  });

  it('a dead letter replayed after forget leaves no trace of the member', async () => {
    const taskQueue = harness.taskQueue('erasure-dlq');
    const refusing = await startFakeIngest({ secrets: [TEST_SECRET] });
    harness.defer(() => refusing.close());
    refusing.script(() => ({ status: 422, body: { code: 'WA_ERR_INVALID_BODY' } }));
    const first = await startTestWorker(harness.env, harness.bundle, refusing, { taskQueue });
    const input = inputOf(messageBody(group, erased, `${words} dead letter`, new Date()));
    const failure = await harness.env.client.workflow
      .execute(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    await first.running.stop();

    const server = await startTestIngestServer(fresh.url, { secrets: [TEST_SECRET] });
    harness.defer(() => server.close());
    const second = await startTestWorker(
      harness.env,
      harness.bundle,
      { webhookUrl: `${server.url}${INGEST_PATH}`, alertUrl: UNUSED },
      { taskQueue }
    );
    harness.defer(() => second.running.stop());
    // A worker polls the queue during forget, as in production: it answers forget's query of the dead-letter
    // workflow (with none, the query waits out the server's timeout and forget lists the entries as not reached).
    await forget();
    const replay = await replayDeadLetters(harness.env.client, { eventIds: [input.eventId] }, 'after forget');
    expect(replay.replayed.map((entry) => entry.eventId)).toEqual([input.eventId]);
    expect(await harness.env.client.workflow.getHandle(input.eventId).result()).toMatchObject({ outcome: 'stored' });

    const text = await dumpLakeText(fresh.lake.pool);
    for (const trace of traces) expect(text).not.toContain(trace);
    const stored = await fresh.lake.pool.query('SELECT 1 FROM whatsapp_event_logs WHERE event_id = $1', [
      input.eventId,
    ]);
    expect(stored.rowCount).toBe(1);
  });
});
