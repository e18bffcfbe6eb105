import { randomUUID } from 'node:crypto';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Alert } from '../../../common/alert-sink.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { generateWebhookSecret } from '../../../common/standard-webhook-signature.js';
import { deriveWaMessageId } from '../../../common/wa-message-id.js';
import { sealWebhookSecret } from '../../../common/webhook-secret-box.js';
import { generateApiKey } from '../../../lake/send/api-key.js';
import { PAYLOAD_REFUSED_ALERT_KIND } from '../../../worker/refused-payload-alerter.js';
import {
  DELIVER_EVENT_WORKFLOW_TYPE,
  FORGED_INPUT_FAILURE_TYPE,
  type DeliverEventInput,
} from '../../../workflows/contracts.js';
import {
  DELIVER_SEND_STATUS_WORKFLOW_TYPE,
  SEND_MESSAGE_WORKFLOW_TYPE,
  sendStatusWebhookId,
  sendWorkflowId,
  type SendMessageInput,
  type SendStatusDeliveryInput,
} from '../../../workflows/send-contracts.js';
import { Receiver } from '../../helpers/status-webhook-testbed.js';
import { startSendStack, type SendStack } from '../../helpers/send-stack.js';
import { postMessage, seedGroup, type SendTestServer } from '../../helpers/send-test-server.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  sampleBody,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';
import { WhatsAppSendDouble } from '../../helpers/whatsapp-send-double.js';

// ADR 0022: with payload encryption on, whoever reaches Temporal without the key cannot start work the
// worker acts on. Each forgery below is started by a client without the codec (as the `temporal` CLI
// would) against the real worker, ingest API, collector send worker and a customer's webhook: it stores,
// dispatches and posts nothing, and the worker raises one alert naming it. The same start by a key holder (the
// control) does have the effect, so the test would see one.
const SELF = '100000000000061@lid';
let temporal: DevTemporal;
let bundle: WorkflowBundleWithSourceMap;
let stack: SendStack;
let server: SendTestServer;
let receiver: Receiver;
let receiverUrl: string;
let forger: Client;
const alerts: Alert[] = [];
const double = new WhatsAppSendDouble();
const taskQueue = uniqueTaskQueue('forged');
const accountId = `acct-${randomUUID().slice(0, 8)}`;
const temp = createTempDir('forged');

beforeAll(async () => {
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  forger = new Client({ connection: temporal.client.connection, namespace: 'default' });
  receiver = new Receiver();
  receiverUrl = await receiver.start();
  stack = await startSendStack({
    databaseUrl: inject('databaseUrl'),
    temporal,
    bundle,
    taskQueue,
    accountId,
    outboxDir: temp.dir,
    socket: double,
    alertSink: { send: (alert) => Promise.resolve(alerts.push(alert) > 0) },
  });
  server = stack.server;
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await temporal?.close();
  temp.cleanup();
});

const refusalsOf = (workflowId: string): Alert[] =>
  alerts.filter((alert) => alert.kind === PAYLOAD_REFUSED_ALERT_KIND && alert.details?.['workflowId'] === workflowId);

/** Waits until the forged workflow's task has failed at least twice, then returns the alerts naming it. */
async function refusedTwice(workflowId: string): Promise<Alert[]> {
  await expect
    .poll(
      async () => {
        const description = await forger.workflow.getHandle(workflowId).describe();
        return description.raw.pendingWorkflowTask?.attempt ?? 0;
      },
      { timeout: 60_000, interval: 250 }
    )
    .toBeGreaterThanOrEqual(2);
  const refusals = refusalsOf(workflowId);
  expect((await forger.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
  await forger.workflow.getHandle(workflowId).terminate('forged, test over');
  return refusals;
}

const lakeRows = async (eventId: string): Promise<number> =>
  (await server.pool.query('SELECT 1 FROM whatsapp_event_logs WHERE event_id = $1', [eventId])).rowCount ?? 0;

describe('starts by a client without the payload key (ADR 0022)', () => {
  it('a hand-started deliverEvent stores no lake row and raises one alert naming it', async () => {
    const forgedId = randomUUID();
    const forged: DeliverEventInput = {
      eventId: forgedId,
      type: 'messages.upsert',
      chatJid: null,
      body: sampleBody(forgedId),
    };
    await forger.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, { taskQueue, workflowId: forgedId, args: [forged] });
    const refusals = await refusedTwice(forgedId);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]?.message).toContain(forgedId);
    expect(await lakeRows(forgedId)).toBe(0);

    const controlId = randomUUID();
    const control = { ...forged, eventId: controlId, body: sampleBody(controlId) };
    await temporal.client.workflow.execute(DELIVER_EVENT_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: controlId,
      args: [control],
    });
    expect(await lakeRows(controlId)).toBe(1);
  });

  it('a hand-started sendMessage to a number that never opted in dispatches nothing and raises one alert', async () => {
    const input = (messageId: string): SendMessageInput => ({
      messageId,
      accountId,
      toJid: '5511987654321@s.whatsapp.net',
      text: `forged ${messageId}`,
      category: 'transactional',
      deliverBy: null,
      waMessageId: deriveWaMessageId(messageId),
    });
    const forgedId = randomUUID();
    const workflowId = sendWorkflowId(forgedId);
    await forger.workflow.start(SEND_MESSAGE_WORKFLOW_TYPE, { taskQueue, workflowId, args: [input(forgedId)] });
    const refusals = await refusedTwice(workflowId);
    expect(refusals).toHaveLength(1);
    expect(double.wire.map((send) => send.text)).not.toContain(`forged ${forgedId}`);

    const controlId = randomUUID();
    const control = await temporal.client.workflow.start(SEND_MESSAGE_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: sendWorkflowId(controlId),
      args: [input(controlId)],
    });
    await expect.poll(() => double.wire.map((send) => send.text), { timeout: 60_000 }).toContain(`forged ${controlId}`);
    await control.terminate('control, test over');
  });

  it('a hand-started deliverSendStatus posts no webhook to the customer and raises one alert', async () => {
    const generated = generateApiKey();
    await server.admin.createApiKey({
      name: 'forged-status',
      accountId,
      keyHash: generated.hash,
      keyPrefix: generated.prefix,
      webhookUrl: `${receiverUrl}/hook`,
      sealedWebhookSecret: sealWebhookSecret(
        generateWebhookSecret(),
        envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS)
      ),
    });
    await server.admin.setAccountParticipants(accountId, [SELF]);
    await server.admin.approveAccount(accountId);
    const groupJid = await seedGroup(server.pool, [SELF]);
    const accepted = await postMessage(server.url, generated.key, { to: groupJid, text: 'status', category: 'otp' });
    const messageId = String(accepted.json['id']);
    const statusInput = (state: 'read' | 'delivered'): SendStatusDeliveryInput => ({
      messageId,
      state,
      at: new Date().toISOString(),
      reasonCode: null,
      sequence: 5,
    });
    const forgedId = `forged-${randomUUID()}`;
    await forger.workflow.start(DELIVER_SEND_STATUS_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: forgedId,
      args: [statusInput('read')],
    });
    const refusals = await refusedTwice(forgedId);
    expect(refusals).toHaveLength(1);
    const readHooks = (): number =>
      receiver.received.filter((request) => request.headers['webhook-id'] === sendStatusWebhookId(messageId, 'read'))
        .length;
    expect(readHooks()).toBe(0);

    await temporal.client.workflow.execute(DELIVER_SEND_STATUS_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: sendStatusWebhookId(messageId, 'read'),
      args: [statusInput('read')],
    });
    expect(readHooks()).toBe(1);
  });
});

describe('an encrypted input copied to another workflow id (ADR 0026)', () => {
  /** Starts `type` under `workflowId` with the stored (encrypted) input of `sourceWorkflowId`, as a copier would. */
  async function startWithCopiedInput(type: string, sourceWorkflowId: string, workflowId: string): Promise<void> {
    const history = await forger.workflow.getHandle(sourceWorkflowId).fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input;
    expect(input?.payloads?.[0]?.metadata?.['encoding']).toBeDefined();
    await forger.workflowService.startWorkflowExecution({
      namespace: 'default',
      workflowId,
      workflowType: { name: type },
      taskQueue: { name: taskQueue },
      input,
      requestId: randomUUID(),
    });
  }

  /** The copied run fails with `ForgedInputError` before any activity, and raises one alert naming it. */
  async function expectRefusedCopy(workflowId: string): Promise<void> {
    const failure = await temporal.client.workflow
      .getHandle(workflowId)
      .result()
      .then(
        () => null,
        (err: unknown) => err
      );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause instanceof ApplicationFailure ? cause.type : cause).toBe(FORGED_INPUT_FAILURE_TYPE);
    const events = (await forger.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
    // One local-activity marker: the alert; no delivery attempt ran.
    expect(events.filter((event) => event.markerRecordedEventAttributes)).toHaveLength(1);
    expect(refusalsOf(workflowId)).toHaveLength(1);
  }

  it("a deliverEvent started with another event's encrypted input stores nothing and raises one alert", async () => {
    const sourceId = randomUUID();
    const source: DeliverEventInput = {
      eventId: sourceId,
      type: 'messages.upsert',
      chatJid: null,
      body: sampleBody(sourceId),
    };
    await temporal.client.workflow.execute(DELIVER_EVENT_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: sourceId,
      args: [source],
    });
    const copyId = randomUUID();
    await startWithCopiedInput(DELIVER_EVENT_WORKFLOW_TYPE, sourceId, copyId);
    await expectRefusedCopy(copyId);
    expect(await lakeRows(copyId)).toBe(0);
  });

  it('a deliverEvent or sendMessage started with no input at all (no payload to refuse) fails with one alert', async () => {
    for (const [type, workflowId] of [
      [DELIVER_EVENT_WORKFLOW_TYPE, randomUUID()],
      [SEND_MESSAGE_WORKFLOW_TYPE, sendWorkflowId(randomUUID())],
    ] as const) {
      await forger.workflow.start(type, { taskQueue, workflowId, args: [] });
      await expectRefusedCopy(workflowId);
    }
  });

  it("a sendMessage started with another message's encrypted input puts nothing on the wire", async () => {
    const messageId = randomUUID();
    const text = `copied ${messageId}`;
    const source = await temporal.client.workflow.start(SEND_MESSAGE_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: sendWorkflowId(messageId),
      args: [
        {
          messageId,
          accountId,
          toJid: '5511987654322@s.whatsapp.net',
          text,
          category: 'transactional',
          deliverBy: null,
          waMessageId: deriveWaMessageId(messageId),
        } satisfies SendMessageInput,
      ],
    });
    await expect.poll(() => double.wire.filter((send) => send.text === text), { timeout: 60_000 }).toHaveLength(1);
    const copyId = sendWorkflowId(randomUUID());
    await startWithCopiedInput(SEND_MESSAGE_WORKFLOW_TYPE, source.workflowId, copyId);
    await expectRefusedCopy(copyId);
    expect(double.wire.filter((send) => send.text === text)).toHaveLength(1);
    await source.terminate('source, test over');
  });
});
