import { randomUUID } from 'node:crypto';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Alert } from '../../../common/alert-sink.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { ACTIVITY_NOT_STARTED_DETAIL } from '../../../common/server-written-payload.js';
import { generateWebhookSecret } from '../../../common/standard-webhook-signature.js';
import { sealWebhookSecret } from '../../../common/webhook-secret-box.js';
import { generateApiKey } from '../../../lake/send/api-key.js';
import { PAYLOAD_REFUSED_ALERT_KIND } from '../../../worker/refused-payload-alerter.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { sendStatusWebhookId, sendWorkflowId } from '../../../workflows/send-contracts.js';
import { Receiver } from '../../helpers/status-webhook-testbed.js';
import {
  getMessage,
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

// ADR 0026: when `deliver_by` passes before any collector picked the dispatch attempt up (`wa-lake dev --replay`
// has no WhatsApp socket; a collector may be down), the workflow cancels the attempt and the real Temporal server
// writes the cancellation's detail in clear. The worker's payload guard accepts exactly that detail, so the
// message ends `expired` with its status webhook, and no forgery alert.
const SELF = '100000000000071@lid';
let temporal: DevTemporal;
let bundle: WorkflowBundleWithSourceMap;
let server: SendTestServer;
let worker: RunningWorker;
let receiver: Receiver;
let receiverUrl: string;
const alerts: Alert[] = [];
const taskQueue = uniqueTaskQueue('server-details');
const accountId = `acct-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  receiver = new Receiver();
  receiverUrl = await receiver.start();
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
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await receiver?.close();
  await temporal?.close();
});

describe('a detail the Temporal server writes in clear (ADR 0026)', () => {
  it('deliver_by passing with no dispatcher polling ends the message expired, with its webhook and no alert', async () => {
    const generated = generateApiKey();
    await server.admin.createApiKey({
      name: 'no-dispatcher',
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
    // Time for a loaded machine to start the workflow and schedule its dispatch attempt before the deadline.
    const deliverBy = new Date(Date.now() + 12_000).toISOString();
    const accepted = await postMessage(server.url, generated.key, {
      to: groupJid,
      text: 'no collector is polling',
      category: 'otp',
      deliver_by: deliverBy,
    });
    expect(accepted.status).toBe(202);
    const messageId = String(accepted.json['id']);

    await expect
      .poll(async () => (await getMessage(server.url, generated.key, messageId)).json['status'], {
        timeout: 90_000,
        interval: 500,
      })
      .toBe('expired');
    const handle = temporal.client.workflow.getHandle(sendWorkflowId(messageId));
    expect(await handle.result()).toMatchObject({ state: 'expired', reasonCode: 'deliver_by_passed' });
    // The path under test was taken: the server cancelled a scheduled, never-started attempt with its clear detail.
    const canceled = (await handle.fetchHistory()).events?.find((event) => event.activityTaskCanceledEventAttributes);
    const detail = canceled?.activityTaskCanceledEventAttributes?.details?.payloads?.[0]?.data;
    expect(detail ? Buffer.from(detail).toString('utf8') : null).toBe(JSON.stringify(ACTIVITY_NOT_STARTED_DETAIL));

    await expect
      .poll(
        () => receiver.received.filter((r) => r.headers['webhook-id'] === sendStatusWebhookId(messageId, 'expired')),
        {
          timeout: 60_000,
        }
      )
      .toHaveLength(1);
    const expired = receiver.received.find(
      (r) => r.headers['webhook-id'] === sendStatusWebhookId(messageId, 'expired')
    );
    expect(JSON.parse(expired?.body ?? '{}')).toMatchObject({ type: 'message.expired' });
    expect(alerts.filter((alert) => alert.kind === PAYLOAD_REFUSED_ALERT_KIND)).toEqual([]);
  });
});
