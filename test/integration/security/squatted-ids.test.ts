import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadCollectorConfig } from '../../../collector/config.js';
import { startSessionSendSide, type SessionSendSide } from '../../../collector/send/session-send-worker.js';
import type { Alert } from '../../../common/alert-sink.js';
import { createLedgeredAlertSink } from '../../../common/alert-window-ledger.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { generateWebhookSecret } from '../../../common/standard-webhook-signature.js';
import { createDataConverter } from '../../../common/temporal-data-converter.js';
import { deriveWaMessageId } from '../../../common/wa-message-id.js';
import { sealWebhookSecret } from '../../../common/webhook-secret-box.js';
import { generateApiKey } from '../../../lake/send/api-key.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { createTemporalAlertLedger } from '../../../worker/temporal-alert-ledger.js';
import {
  ALERT_WINDOW_WORKFLOW_TYPE,
  PAYLOAD_REFUSED_ALERT_KIND,
  alertWindowWorkflowId,
} from '../../../workflows/contracts.js';
import {
  DELIVER_SEND_STATUS_WORKFLOW_TYPE,
  sendStatusWebhookId,
  type SendStatusDeliveryInput,
} from '../../../workflows/send-contracts.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';
import { postMessage, seedGroup, startSendTestServer, type SendTestServer } from '../../helpers/send-test-server.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { Receiver } from '../../helpers/status-webhook-testbed.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  decodeStoredPayload,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  testWorkerConfig,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { WhatsAppSendDouble } from '../../helpers/whatsapp-send-double.js';

// ADR 0026 §7: some workflow ids are deterministic, so whoever reaches the Temporal frontend without the key can
// start a workflow under one first, on a task queue of their own, and make the genuine start come back "already
// started". Each squatter below is found (its input is no key holder's), terminated and replaced: the alert or
// webhook it would silence still arrives, with one alert naming it.
const SELF = '100000000000081@lid';
const ATTACKER_QUEUE = 'attacker-queue';
let temporal: DevTemporal;
let server: SendTestServer;
let worker: RunningWorker;
let sendSide: SessionSendSide;
let receiver: Receiver;
let receiverUrl: string;
let forger: Client;
const alerts: Alert[] = [];
const double = new WhatsAppSendDouble();
const taskQueue = uniqueTaskQueue('squatted-ids');
const accountId = `acct-${randomUUID().slice(0, 8)}`;
const temp = createTempDir('squatted-ids');

beforeAll(async () => {
  let bundle;
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  forger = new Client({ connection: temporal.client.connection, namespace: 'default' });
  receiver = new Receiver();
  receiverUrl = await receiver.start();
  const env = {
    TEMPORAL_ADDRESS: temporal.server.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
  };
  server = await startSendTestServer(inject('databaseUrl'), { env });
  worker = await runWorker({
    config: testWorkerConfig({
      ...env,
      WEBHOOK_URL: `${server.url}${INGEST_PATH}`,
      SEND_WEBHOOK_ALLOW_HTTP: 'true',
      SEND_WEBHOOK_ALLOW_PRIVATE: 'true',
    }),
    logger: silentLogger(),
    workflowBundle: bundle,
    alertSink: { send: (alert) => Promise.resolve(alerts.push(alert) > 0) },
  });
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
  await sendSide?.stop();
  await worker?.stop();
  await server?.close();
  await receiver?.close();
  await temporal?.close();
  temp.cleanup();
});

describe('a pre-started alert window (ADR 0026 §7)', () => {
  it('is terminated and replaced, so ingest_unauthorized still arrives, with one alert naming it', async () => {
    const ledgerQueue = uniqueTaskQueue('alert-window');
    const kind = 'ingest_unauthorized';
    const workflowId = alertWindowWorkflowId(ledgerQueue, kind);
    const squatter = await forger.workflow.start(ALERT_WINDOW_WORKFLOW_TYPE, {
      taskQueue: ATTACKER_QUEUE,
      workflowId,
      args: [{ windowMs: 60_000 }],
    });
    const sent: Alert[] = [];
    const sinkOfOneWorker = () =>
      createLedgeredAlertSink({
        inner: { send: (alert) => Promise.resolve(sent.push(alert) > 0) },
        ledger: createTemporalAlertLedger({ client: temporal.client, taskQueue: ledgerQueue }),
        windowMs: 60_000,
        logger: silentLogger(),
      });

    expect(await sinkOfOneWorker().send({ kind, severity: 'error', message: 'the ingest API refuses us' })).toBe(true);
    expect(sent.map((alert) => alert.kind)).toEqual([PAYLOAD_REFUSED_ALERT_KIND, kind]);
    expect(sent[0]?.details).toMatchObject({
      workflowId,
      reason: 'alert_window_squatted',
      squatReason: 'not_decryptable',
    });
    const squatterRun = forger.workflow.getHandle(workflowId, squatter.firstExecutionRunId);
    expect((await squatterRun.describe()).status.name).toBe('TERMINATED');

    // The window is a key holder's now: it holds for the next worker, with no further alert.
    const window = await forger.workflow.getHandle(workflowId).fetchHistory();
    const input = window.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(await decodeStoredPayload(input)).toEqual({ windowMs: 60_000, workflowId });
    expect(await sinkOfOneWorker().send({ kind, severity: 'error', message: 'again' })).toBe(false);
    expect(sent).toHaveLength(2);
    await forger.workflow.getHandle(workflowId).terminate('test over');
  });
});

describe('a pre-started status webhook id (ADR 0026 §7)', () => {
  it('is terminated and replaced, so the genuine webhook is delivered once, with one alert naming it', async () => {
    const generated = generateApiKey();
    await server.admin.createApiKey({
      name: 'squatted-status',
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
    const accepted = await postMessage(server.url, generated.key, { to: groupJid, text: 'squat', category: 'otp' });
    const messageId = String(accepted.json['id']);
    const hooksOf = (state: 'dispatched' | 'read'): number =>
      receiver.received.filter((request) => request.headers['webhook-id'] === sendStatusWebhookId(messageId, state))
        .length;
    await expect.poll(() => hooksOf('dispatched'), { timeout: 60_000 }).toBe(1);

    const workflowId = sendStatusWebhookId(messageId, 'read');
    const forged: SendStatusDeliveryInput = {
      messageId,
      state: 'read',
      at: new Date().toISOString(),
      reasonCode: null,
      sequence: 3,
    };
    const squatter = await forger.workflow.start(DELIVER_SEND_STATUS_WORKFLOW_TYPE, {
      taskQueue: ATTACKER_QUEUE,
      workflowId,
      args: [forged],
    });
    sendSide.onEvent('messages.update', [
      { key: { id: deriveWaMessageId(messageId), fromMe: true }, update: { status: 4 } },
    ]);

    await expect.poll(() => hooksOf('read'), { timeout: 90_000 }).toBe(1);
    const refusals = alerts.filter(
      (alert) => alert.kind === PAYLOAD_REFUSED_ALERT_KIND && alert.details?.['workflowId'] === workflowId
    );
    expect(refusals).toHaveLength(1);
    expect(refusals[0]?.details).toMatchObject({ reason: 'status_webhook_squatted', squatReason: 'not_decryptable' });
    const squatterRun = forger.workflow.getHandle(workflowId, squatter.firstExecutionRunId);
    expect((await squatterRun.describe()).status.name).toBe('TERMINATED');
    expect(hooksOf('read')).toBe(1);
  }, 180_000);
});
