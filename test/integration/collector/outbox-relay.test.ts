import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { OutboxRelay, type OutboxRelayOptions } from '../../../collector/outbox-relay.js';
import { WA_CHAT_JID, WA_DELIVERY_STATE, WA_EVENT_TYPE } from '../../../workflows/contracts.js';
import { runCollector } from '../../../collector/run-collector.js';
import { createTestClient, createTestWorker } from '../../helpers/temporal-env.js';
import {
  collectorConfigIn,
  createRecordingAlertSink,
  createRecordingLogger,
  createTempDir,
} from '../../helpers/collector-test-kit.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed({ server: 'local', bundle: false });
const EXAMPLE = new URL('../../../examples/capture.jsonl', import.meta.url).pathname;

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function openOutbox(): { outbox: OutboxStore; pipeline: EventPipeline } {
  const { dir, cleanup } = createTempDir('sender');
  const outbox = OutboxStore.open({ path: join(dir, 'outbox.sqlite') });
  cleanups.push(cleanup, () => outbox.close());
  return {
    outbox,
    pipeline: new EventPipeline({ outbox, logger: createRecordingLogger().logger, getSelfJid: () => null }),
  };
}

function makeSender(overrides: Partial<OutboxRelayOptions> & Pick<OutboxRelayOptions, 'client' | 'outbox'>) {
  const alerts = createRecordingAlertSink();
  const sender = new OutboxRelay({
    logger: createRecordingLogger().logger,
    alertSink: alerts.sink,
    taskQueue: `sender-test-${randomUUID()}`,
    batchSize: 10,
    concurrency: 4,
    pollIntervalMs: 50,
    startTimeoutMs: 2000,
    retryBaseDelayMs: 1000,
    retryMaxDelayMs: 60_000,
    ...overrides,
  });
  cleanups.push(() => sender.stop());
  return { sender, alerts: alerts.alerts };
}

function groupMessage(id: string) {
  return {
    type: 'notify',
    messages: [
      {
        key: { remoteJid: '120363000000000001@g.us', fromMe: false, id, participant: '100000000000001@lid' },
        messageTimestamp: 1748772000,
        message: { conversation: 'hi' },
      },
    ],
  };
}

describe('OutboxRelay', () => {
  it('starts one deliverEvent per event: same event twice → one workflow whose id is the event_id', async () => {
    const { outbox, pipeline } = openOutbox();
    const messageId = `3EB0${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;
    const first = pipeline.handle('messages.upsert', groupMessage(messageId), new Date());
    pipeline.handle('messages.upsert', groupMessage(messageId), new Date());
    const eventId = first.eventIds[0]!;
    const { sender } = makeSender({ client: harness.env.client, outbox });

    await expect(sender.waitUntilIdle()).resolves.toMatchObject({
      due: 1,
      started: 1,
      alreadyStarted: 0,
      failed: 0,
    });
    expect(outbox.get(eventId)?.state).toBe('started');
    const description = await harness.env.client.workflow.getHandle(eventId).describe();
    expect(description.type).toBe('deliverEvent');
    expect(description.workflowId).toBe(eventId);
    expect(description.typedSearchAttributes.get(WA_EVENT_TYPE)).toBe('messages.upsert');
    expect(description.typedSearchAttributes.get(WA_CHAT_JID)).toBe('120363000000000001@g.us');
    expect(description.typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('pending');

    // After the outbox was pruned (or on another machine), the same event is handed over again: still one workflow.
    const again = openOutbox();
    again.pipeline.handle('messages.upsert', groupMessage(messageId), new Date());
    const { sender: secondSender } = makeSender({ client: harness.env.client, outbox: again.outbox });
    await expect(secondSender.drainOnce()).resolves.toMatchObject({ started: 0, alreadyStarted: 1 });
    expect(again.outbox.get(eventId)?.state).toBe('started');
    const runs = await harness.env.client.workflow.count(`WorkflowId = '${eventId}'`).catch(() => null);
    if (runs !== null) expect(runs.count).toBeLessThanOrEqual(1);
  });

  it('a stub worker completes the workflow; handing the same event over again still makes no second workflow', async () => {
    const taskQueue = `sender-worker-${randomUUID()}`;
    const worker = await createTestWorker({
      connection: harness.env.nativeConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../../helpers/stub-workflows.ts', import.meta.url)),
    });
    const { outbox, pipeline } = openOutbox();
    const messageId = `3EB0WORKER${randomUUID().slice(0, 8)}`;
    const [eventId] = pipeline.handle('messages.upsert', groupMessage(messageId), new Date()).eventIds;
    const { sender } = makeSender({ client: harness.env.client, outbox, taskQueue });
    await worker.runUntil(async () => {
      await expect(sender.waitUntilIdle()).resolves.toMatchObject({ started: 1 });
      await expect(harness.env.client.workflow.getHandle(eventId!).result()).resolves.toMatchObject({
        eventId,
        outcome: 'stored',
      });
    });
    const again = openOutbox();
    again.pipeline.handle('messages.upsert', groupMessage(messageId), new Date());
    const { sender: secondSender } = makeSender({ client: harness.env.client, outbox: again.outbox, taskQueue });
    await expect(secondSender.drainOnce()).resolves.toMatchObject({ started: 0, alreadyStarted: 1 });
    expect(again.outbox.get(eventId!)?.state).toBe('started');
  });

  it('is woken by the enqueue itself: a row is started without waiting for the poll (ADR 0008)', async () => {
    const { outbox, pipeline } = openOutbox();
    // An hour-long poll interval: only the outbox's commit notification can start this row.
    const { sender } = makeSender({ client: harness.env.client, outbox, pollIntervalMs: 3_600_000 });
    sender.start();
    await sender.drainOnce(); // the start-up drain has run; the loop now sleeps for the poll interval
    const [eventId] = pipeline.handle(
      'messages.upsert',
      groupMessage(`3EB0WAKE${randomUUID().slice(0, 8)}`),
      new Date()
    ).eventIds;
    await expect.poll(() => outbox.get(eventId!)?.state, { timeout: 30_000, interval: 50 }).toBe('started');
    await expect(harness.env.client.workflow.getHandle(eventId!).describe()).resolves.toMatchObject({
      type: 'deliverEvent',
    });
  });

  it('keeps rows pending with backoff and alerts once while Temporal is unreachable; capture goes on', async () => {
    const { outbox, pipeline } = openOutbox();
    const connection = Connection.lazy({ address: `127.0.0.1:${await findFreePort()}` });
    cleanups.push(() => connection.close());
    const clock = { now: Date.now() };
    const { sender, alerts } = makeSender({
      client: createTestClient(connection),
      outbox,
      startTimeoutMs: 1500,
      now: () => clock.now,
      random: () => 1,
    });
    const ids = ['A', 'B', 'C'].flatMap(
      (suffix) =>
        pipeline.handle('messages.upsert', groupMessage(`3EB0DOWN${suffix}${randomUUID().slice(0, 8)}`), new Date())
          .eventIds
    );
    clock.now = Date.now() + 1;

    const firstDrain = await sender.drainOnce();
    expect(firstDrain).toMatchObject({ due: 3, started: 0, failed: 3 });
    for (const id of ids) expect(outbox.get(id)).toMatchObject({ state: 'pending', startAttempts: 1 });
    expect(outbox.get(ids[0]!)!.nextAttemptAt).toBeGreaterThan(clock.now);
    await expect(sender.drainOnce()).resolves.toMatchObject({ due: 0 });

    const [lateId] = pipeline.handle('messages.upsert', groupMessage('3EB0DOWNLATE'), new Date()).eventIds;
    clock.now += 120_000;
    // In the outage one row (the oldest due) probes; the three others are not tried, so their start
    // attempts and backoff do not grow (ADR 0008): they wait until the probe's retry.
    await expect(sender.drainOnce()).resolves.toMatchObject({ due: 4, failed: 1, postponed: 3 });
    const rows = [...ids, lateId!].map((id) => outbox.get(id)!);
    expect(rows.map((row) => row.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(rows.reduce((sum, row) => sum + row.startAttempts, 0)).toBe(3 + 1);
    expect(new Set(rows.map((row) => row.nextAttemptAt)).size).toBe(1);
    expect(alerts.map((alert) => alert.kind)).toEqual(['temporal_unreachable']);
  });

  it('names the likely cause of the outage in its alert (a TLS mistake is no "is it running?", ADR 0028)', async () => {
    const { outbox, pipeline } = openOutbox();
    const connection = Connection.lazy({ address: `127.0.0.1:${await findFreePort()}` });
    cleanups.push(() => connection.close());
    const cause =
      "the server's certificate at 127.0.0.1:1 is not for x: set TEMPORAL_TLS_SERVER_NAME to a name it holds";
    const { sender, alerts } = makeSender({
      client: createTestClient(connection),
      outbox,
      startTimeoutMs: 1500,
      diagnoseUnreachable: () => Promise.resolve(cause),
    });
    pipeline.handle('messages.upsert', groupMessage(`3EB0TLS${randomUUID().slice(0, 8)}`), new Date());
    await expect(sender.drainOnce()).resolves.toMatchObject({ failed: 1 });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.message).toContain(`(likely cause: ${cause})`);
    expect(alerts[0]?.details).toMatchObject({ likelyCause: cause });
  });

  it('replay through runCollector hands every distinct kept event to Temporal before replayDone resolves', async () => {
    const { dir, cleanup } = createTempDir('replay-temporal');
    cleanups.push(cleanup);
    const config = collectorConfigIn(dir, { TEMPORAL_TASK_QUEUE: `replay-${randomUUID()}` });
    const collector = await runCollector({
      config,
      logger: createRecordingLogger().logger,
      alertSink: createRecordingAlertSink().sink,
      temporalClient: harness.env.client,
      source: { kind: 'replay', path: EXAMPLE },
    });
    cleanups.push(() => collector.stop());
    const summary = await collector.replayDone!;
    expect(collector.outbox.countByState()).toEqual({
      pending: 0,
      started: summary.eventIds.size - summary.dead,
      dead: summary.dead,
    });
    const someId = [...summary.eventIds][0]!;
    await expect(harness.env.client.workflow.getHandle(someId).describe()).resolves.toMatchObject({
      workflowId: someId,
      type: 'deliverEvent',
    });
  });
});
