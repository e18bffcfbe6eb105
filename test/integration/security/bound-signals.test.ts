import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadCollectorConfig } from '../../../collector/config.js';
import { startSessionSendSide, type SessionSendSide } from '../../../collector/send/session-send-worker.js';
import type { Alert } from '../../../common/alert-sink.js';
import { stampControlSignal } from '../../../common/control-signal-stamp.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { createDataConverter } from '../../../common/temporal-data-converter.js';
import { deriveWaMessageId } from '../../../common/wa-message-id.js';
import { PAYLOAD_REFUSED_ALERT_KIND } from '../../../worker/refused-payload-alerter.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { FORGED_INPUT_FAILURE_TYPE } from '../../../workflows/contracts.js';
import {
  SEND_MESSAGE_WORKFLOW_TYPE,
  pauseSendingSignal,
  resumeSendingSignal,
  sendGateStatusQuery,
  sendGateWorkflowId,
  sendStatusQuery,
  sendWorkflowId,
  type SendMessageResult,
} from '../../../workflows/send-contracts.js';
import {
  createTestApiKey,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  testWorkerConfig,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';
import { WhatsAppSendDouble } from '../../helpers/whatsapp-send-double.js';

// ADR 0026 §4–§6: whoever reaches Temporal without the key copies encrypted arguments and inputs out of histories
// and sends them again. A signal argument names its target, control signals are ordered and fresh, and an input
// runs once: each copy below changes nothing (lake rows, gate state, the wire) and raises one alert naming the
// workflow it was sent to.
const SELF = '100000000000071@lid';
let temporal: DevTemporal;
let server: SendTestServer;
let worker: RunningWorker;
let sendSide: SessionSendSide;
let forger: Client;
let apiKey: string;
let accountId: string;
let groupJid: string;
const alerts: Alert[] = [];
const double = new WhatsAppSendDouble();
const taskQueue = uniqueTaskQueue('bound-signals');
const temp = createTempDir('bound-signals');

beforeAll(async () => {
  let bundle;
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  forger = new Client({ connection: temporal.client.connection, namespace: 'default' });
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
    alertSink: { send: (alert) => Promise.resolve(alerts.push(alert) > 0) },
  });
  ({ key: apiKey, accountId } = await createTestApiKey(server.admin, { self: [SELF] }));
  groupJid = await seedGroup(server.pool, [SELF]);
  const collector = loadCollectorConfig({ ...env, OUTBOX_PATH: join(temp.dir, 'outbox.sqlite') });
  sendSide = startSessionSendSide({
    accountId,
    temporal: collector.temporal,
    client: temporal.client,
    dataConverter: createDataConverter(collector.PAYLOAD_ENCRYPTION_KEYS),
    outboxPath: collector.OUTBOX_PATH,
    getSocket: () => double,
    logger: silentLogger(),
  });
}, 120_000);
afterAll(async () => {
  await temporal?.client.workflow
    .getHandle(sendGateWorkflowId(accountId))
    .terminate('test over')
    .catch(() => undefined);
  await sendSide?.stop();
  await worker?.stop();
  await server?.close();
  await temporal?.close();
  temp.cleanup();
});

const refusalsOf = (workflowId: string): Alert[] =>
  alerts.filter((alert) => alert.kind === PAYLOAD_REFUSED_ALERT_KIND && alert.details?.['workflowId'] === workflowId);

const lakeState = async (messageId: string): Promise<string | undefined> =>
  (await server.pool.query<{ state: string }>('SELECT state FROM outbound_messages WHERE id = $1', [messageId])).rows[0]
    ?.state;

/** Sends a message through the API and waits until the collector put it on the wire and the lake says dispatched. */
async function sendDispatched(): Promise<{ messageId: string; text: string }> {
  const text = `bound ${randomUUID()}`;
  const accepted = await postMessage(server.url, apiKey, { to: groupJid, text, category: 'otp' });
  expect(accepted.status).toBe(202);
  const messageId = String(accepted.json['id']);
  await expect.poll(() => lakeState(messageId), { timeout: 60_000 }).toBe('dispatched');
  return { messageId, text };
}

/** WhatsApp reports the message read: the collector's ACK router signals its workflow (the genuine path). */
async function readByWhatsApp(messageId: string): Promise<void> {
  sendSide.onEvent('messages.update', [
    { key: { id: deriveWaMessageId(messageId), fromMe: true }, update: { status: 4 } },
  ]);
  await expect.poll(() => lakeState(messageId), { timeout: 60_000 }).toBe('read');
}

/** The encrypted argument of the last `signalName` signal in `workflowId`'s history, as a copier finds it. */
async function copiedSignalInput(workflowId: string, signalName: string) {
  const events = (await forger.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const signals = events
    .map((event) => event.workflowExecutionSignaledEventAttributes)
    .filter((signal) => signal?.signalName === signalName);
  const input = signals.at(-1)?.input;
  expect(input?.payloads?.[0]?.metadata?.['encoding']).toBeDefined();
  return input ?? undefined;
}

async function signalCopy(
  workflowId: string,
  signalName: string,
  input: Awaited<ReturnType<typeof copiedSignalInput>>
) {
  await forger.workflowService.signalWorkflowExecution({
    namespace: 'default',
    workflowExecution: { workflowId },
    signalName,
    input,
    identity: 'forger',
    requestId: randomUUID(),
  });
}

describe('signal arguments bound to their target (ADR 0026 §4)', () => {
  it("a read ACK copied from one message's history to another leaves the other dispatched, with one alert", async () => {
    const source = await sendDispatched();
    const target = await sendDispatched();
    await readByWhatsApp(source.messageId);

    const targetWorkflowId = sendWorkflowId(target.messageId);
    await signalCopy(targetWorkflowId, 'sendAck', await copiedSignalInput(sendWorkflowId(source.messageId), 'sendAck'));
    await expect.poll(() => refusalsOf(targetWorkflowId).length, { timeout: 60_000 }).toBe(1);
    expect(refusalsOf(targetWorkflowId)[0]?.details).toMatchObject({
      reason: 'signal_for_another_workflow',
      signalName: 'sendAck',
    });
    const status = await temporal.client.workflow.getHandle(targetWorkflowId).query(sendStatusQuery);
    expect(status.state).toBe('dispatched');
    expect(await lakeState(target.messageId)).toBe('dispatched');

    // The genuine ACK of the target still counts.
    await readByWhatsApp(target.messageId);
    expect(refusalsOf(targetWorkflowId)).toHaveLength(1);
  }, 180_000);
});

describe('an input is used once (ADR 0026 §6)', () => {
  it('a finished sendMessage re-started with its own copied input sends nothing and raises one alert', async () => {
    const { messageId, text } = await sendDispatched();
    await readByWhatsApp(messageId);
    const workflowId = sendWorkflowId(messageId);
    const first = (await temporal.client.workflow.getHandle(workflowId).result()) as SendMessageResult;
    expect(first.state).toBe('read');

    const history = await forger.workflow.getHandle(workflowId).fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input;
    await forger.workflowService.startWorkflowExecution({
      namespace: 'default',
      workflowId,
      workflowType: { name: SEND_MESSAGE_WORKFLOW_TYPE },
      taskQueue: { name: taskQueue },
      input,
      requestId: randomUUID(),
    });
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
    expect(refusalsOf(workflowId)).toHaveLength(1);
    expect(refusalsOf(workflowId)[0]?.details).toMatchObject({ reason: 'input_already_used', state: 'read' });
    // Wire-send idempotency: the message went out once, under its one WhatsApp id.
    expect(double.wire.filter((send) => send.text === text).map((send) => send.messageId)).toEqual([
      deriveWaMessageId(messageId),
    ]);
    expect(await lakeState(messageId)).toBe('read');
  }, 180_000);
});

describe('control signals ordered and fresh (ADR 0026 §5)', () => {
  it("a resume copied from the gate's history does not undo a later pause, and raises one alert", async () => {
    await sendDispatched(); // the account's gate exists
    const gateId = sendGateWorkflowId(accountId);
    const gate = temporal.client.workflow.getHandle(gateId);
    const isPaused = async (): Promise<boolean> => (await gate.query(sendGateStatusQuery)).paused;
    const resume = async (): Promise<void> =>
      gate.signal(resumeSendingSignal, {
        requestedBy: 'operator',
        at: new Date().toISOString(),
        ...stampControlSignal(gateId),
      });

    await gate.signal(pauseSendingSignal, { reason: 'operator', ...stampControlSignal(gateId) });
    await expect.poll(isPaused, { timeout: 60_000 }).toBe(true);
    await resume();
    await expect.poll(isPaused, { timeout: 60_000 }).toBe(false);
    await gate.signal(pauseSendingSignal, { reason: 'operator', ...stampControlSignal(gateId) });
    await expect.poll(isPaused, { timeout: 60_000 }).toBe(true);

    await signalCopy(gateId, 'resumeSending', await copiedSignalInput(gateId, 'resumeSending'));
    await expect.poll(() => refusalsOf(gateId).length, { timeout: 60_000 }).toBe(1);
    expect(refusalsOf(gateId)[0]?.details).toMatchObject({
      reason: 'control_signal_replayed',
      signalName: 'resumeSending',
    });
    expect(await isPaused()).toBe(true);

    // A stale one (issued 20 minutes ago) is refused too; a fresh resume by a key holder still resumes.
    await gate.signal(resumeSendingSignal, {
      requestedBy: 'operator',
      at: new Date().toISOString(),
      ...stampControlSignal(gateId, Date.now() - 20 * 60_000),
    });
    await expect.poll(() => refusalsOf(gateId).length, { timeout: 60_000 }).toBe(2);
    expect(refusalsOf(gateId)[1]?.details).toMatchObject({ reason: 'control_signal_stale' });
    expect(await isPaused()).toBe(true);
    await resume();
    await expect.poll(isPaused, { timeout: 60_000 }).toBe(false);
    expect(refusalsOf(gateId)).toHaveLength(2);
  }, 180_000);
});
