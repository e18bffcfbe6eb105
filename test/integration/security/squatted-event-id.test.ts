import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { OutboxRelay } from '../../../collector/outbox-relay.js';
import type { Alert } from '../../../common/alert-sink.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { DELIVER_EVENT_WORKFLOW_TYPE, type DeliverEventInput } from '../../../workflows/contracts.js';
import { startSendTestServer, type SendTestServer } from '../../helpers/send-test-server.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  testWorkerConfig,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';

// ADR 0022: event ids are UUIDv5 of public data, so anyone who reaches Temporal can start a workflow
// under the id of a reaction that has not happened yet. When the genuine reaction arrives, the sender finds its
// id taken, sees that the holder's input does not decrypt, alerts once, replaces it, and the genuine reaction
// reaches the lake exactly once.
const GROUP = '120363000000000051@g.us';
let temporal: DevTemporal;
let bundle: WorkflowBundleWithSourceMap;
let server: SendTestServer;
let worker: RunningWorker;
const taskQueue = uniqueTaskQueue('squat');
const temp = createTempDir('squat');
const collectorAlerts: Alert[] = [];
const workerAlerts: Alert[] = [];

beforeAll(async () => {
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  const env = {
    TEMPORAL_ADDRESS: temporal.server.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
  };
  server = await startSendTestServer(inject('databaseUrl'), { env });
  worker = await runWorker({
    config: testWorkerConfig({ ...env, WEBHOOK_URL: `${server.url}${INGEST_PATH}` }),
    logger: silentLogger(),
    workflowBundle: bundle,
    alertSink: { send: (alert) => Promise.resolve(workerAlerts.push(alert) > 0) },
  });
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await temporal?.close();
  temp.cleanup();
});

/** Baileys' `messages.reaction`: `reactor` reacts `text` on message `targetId`. */
function reaction(targetId: string, reactor: string, text: string): unknown {
  return [
    {
      key: { remoteJid: GROUP, fromMe: false, id: targetId, participant: '100000000000052@lid' },
      reaction: {
        key: { remoteJid: GROUP, fromMe: false, id: `3EB0${randomUUID().slice(0, 8)}`, participant: reactor },
        text,
        senderTimestampMs: 1_748_772_000_000,
      },
    },
  ];
}

function makeSender(outbox: OutboxStore): OutboxRelay {
  return new OutboxRelay({
    client: temporal.client,
    outbox,
    logger: silentLogger(),
    alertSink: { send: (alert) => Promise.resolve(collectorAlerts.push(alert) > 0) },
    taskQueue,
    batchSize: 10,
    concurrency: 2,
    pollIntervalMs: 50,
    startTimeoutMs: 5_000,
    retryBaseDelayMs: 200,
    retryMaxDelayMs: 2_000,
  });
}

function openPipeline(name: string): { outbox: OutboxStore; pipeline: EventPipeline } {
  const outbox = OutboxStore.open({ path: join(temp.dir, `${name}.sqlite`) });
  return { outbox, pipeline: new EventPipeline({ outbox, logger: silentLogger(), getSelfJid: () => null }) };
}

describe('an event id squatted before the event happens (ADR 0022)', () => {
  it('ends with the genuine reaction in the lake once, the squatter terminated and one collector alert', async () => {
    const targetId = `3EB0${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;
    const genuine = reaction(targetId, '100000000000053@lid', '👍');
    // The attacker derives the id from public data (here: the collector's own pipeline on a scratch outbox).
    const scratch = openPipeline('attacker');
    const [eventId] = scratch.pipeline.handle('messages.reaction', genuine, new Date()).eventIds;
    scratch.outbox.close();
    expect(eventId).toBeDefined();
    const squatId = eventId ?? '';
    const forger = new Client({ connection: temporal.client.connection, namespace: 'default' });
    const forged: DeliverEventInput = {
      eventId: squatId,
      type: 'messages.reaction',
      chatJid: GROUP,
      body: JSON.stringify({ type: 'messages.reaction', chat_jid: GROUP, payload: { forged: true } }),
    };
    const squatter = await forger.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: squatId,
      args: [forged],
    });

    // Later the reaction happens and the collector hands it over.
    const { outbox, pipeline } = openPipeline('outbox');
    const sender = makeSender(outbox);
    expect(pipeline.handle('messages.reaction', genuine, new Date()).eventIds).toEqual([squatId]);
    await expect(sender.waitUntilIdle()).resolves.toMatchObject({ due: 1, started: 1, alreadyStarted: 0 });
    await sender.stop();

    const lake = async () =>
      (
        await server.pool.query<{ payload: unknown }>('SELECT payload FROM whatsapp_event_logs WHERE event_id = $1', [
          squatId,
        ])
      ).rows;
    await expect.poll(async () => (await lake()).length, { timeout: 60_000, interval: 200 }).toBe(1);
    expect(JSON.stringify((await lake())[0]?.payload)).toContain('👍');
    expect(JSON.stringify((await lake())[0]?.payload)).not.toContain('forged');
    const squatterRun = forger.workflow.getHandle(squatId, squatter.firstExecutionRunId);
    expect((await squatterRun.describe()).status.name).toBe('TERMINATED');
    expect(collectorAlerts.map((alert) => [alert.kind, alert.details?.['reason']])).toEqual([
      ['workflow_id_squatted', 'not_decryptable'],
    ]);
    // Handing the same reaction over again (a fresh outbox, as after pruning) finds the genuine delivery.
    outbox.close();
    const replayOutbox = openPipeline('replay');
    replayOutbox.pipeline.handle('messages.reaction', genuine, new Date());
    const replaySender = makeSender(replayOutbox.outbox);
    await expect(replaySender.waitUntilIdle()).resolves.toMatchObject({ due: 1, started: 0, alreadyStarted: 1 });
    await replaySender.stop();
    replayOutbox.outbox.close();
    expect(collectorAlerts).toHaveLength(1);
    expect(await lake()).toHaveLength(1);
  });

  it('replaces a holder whose input decrypts but carries another body (reason other_body)', async () => {
    const targetId = `3EB0${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;
    const genuine = reaction(targetId, '100000000000054@lid', '🎉');
    const { outbox, pipeline } = openPipeline(`other-body-${targetId}`);
    const [eventId] = pipeline.handle('messages.reaction', genuine, new Date()).eventIds;
    const heldId = eventId ?? '';
    // Written with the key but for another body, on a queue no worker polls (it never runs).
    const held = await temporal.client.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, {
      taskQueue: uniqueTaskQueue('nobody'),
      workflowId: heldId,
      args: [{ eventId: heldId, type: 'messages.reaction', chatJid: GROUP, body: '{"payload":{"other":true}}' }],
    });
    const alertsBefore = collectorAlerts.length;
    const sender = makeSender(outbox);
    await expect(sender.waitUntilIdle()).resolves.toMatchObject({ due: 1, started: 1 });
    await sender.stop();
    outbox.close();
    await expect
      .poll(
        async () =>
          (await server.pool.query('SELECT 1 FROM whatsapp_event_logs WHERE event_id = $1', [heldId])).rowCount,
        { timeout: 60_000, interval: 200 }
      )
      .toBe(1);
    expect((await temporal.client.workflow.getHandle(heldId, held.firstExecutionRunId).describe()).status.name).toBe(
      'TERMINATED'
    );
    expect(collectorAlerts.slice(alertsBefore).map((alert) => alert.details?.['reason'])).toEqual(['other_body']);
  });
});
