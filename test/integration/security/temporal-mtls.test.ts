import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { startSessionSendSide, type SessionSendSide } from '../../../collector/send/session-send-worker.js';
import { OutboxRelay } from '../../../collector/outbox-relay.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { createLazyTemporalClient, type LazyTemporalClient } from '../../../common/lazy-temporal-client.js';
import { createDataConverter } from '../../../common/temporal-data-converter.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import { collectorConfigIn, createRecordingAlertSink, createTempDir } from '../../helpers/collector-test-kit.js';
import {
  createTestApiKey,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';
import { startMtlsProxy, type MtlsProxy } from '../../helpers/mtls-proxy.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  testWorkerConfig,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { createTestCertificates, type TestCertificates } from '../../helpers/test-certificates.js';
import { WhatsAppSendDouble } from '../../helpers/whatsapp-send-double.js';

// ADR 0022: every wa-lake connection to Temporal goes through a TLS endpoint that requires a client
// certificate (a TLS-terminating proxy in front of the dev server), configured only by TEMPORAL_* keys: the
// collector's sender, the worker, the ingest API's send starter and the collector's send worker. A delivery and a
// send go through; a client without the certificate is refused.
const SELF = '100000000000071@lid';
let temporal: DevTemporal;
let certificates: TestCertificates;
let proxy: MtlsProxy;
let bundle: WorkflowBundleWithSourceMap;
let server: SendTestServer;
let worker: RunningWorker;
let collectorClient: LazyTemporalClient;
let sendSide: SessionSendSide;
let sender: OutboxRelay;
let outbox: OutboxStore;
const double = new WhatsAppSendDouble();
const accountId = `acct-${randomUUID().slice(0, 8)}`;
const taskQueue = uniqueTaskQueue('mtls');
const temp = createTempDir('mtls');

function tlsEnv(): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCertPath,
    TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
    TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
  };
}

beforeAll(async () => {
  certificates = createTestCertificates();
  [temporal, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  proxy = await startMtlsProxy(certificates, temporal.server.address);
  server = await startSendTestServer(inject('databaseUrl'), { env: tlsEnv() });
  worker = await runWorker({
    config: testWorkerConfig({
      WEBHOOK_URL: `${server.url}${INGEST_PATH}`,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...tlsEnv(),
    }),
    logger: silentLogger(),
    workflowBundle: bundle,
  });
  const collector = collectorConfigIn(temp.dir, { ...tlsEnv(), SEND_ACCOUNT_ID: accountId });
  const dataConverter = createDataConverter(collector.PAYLOAD_ENCRYPTION_KEYS);
  collectorClient = createLazyTemporalClient(collector.temporal, dataConverter);
  outbox = OutboxStore.open({ path: collector.OUTBOX_PATH });
  sender = new OutboxRelay({
    client: collectorClient.client,
    outbox,
    logger: silentLogger(),
    alertSink: createRecordingAlertSink().sink,
    taskQueue,
    batchSize: 10,
    concurrency: 2,
    pollIntervalMs: 50,
    startTimeoutMs: 5_000,
    retryBaseDelayMs: 200,
    retryMaxDelayMs: 2_000,
  });
  sender.start();
  sendSide = startSessionSendSide({
    accountId,
    temporal: collector.temporal,
    client: collectorClient.client,
    dataConverter,
    outboxPath: collector.OUTBOX_PATH,
    getSocket: () => double,
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await sender?.stop();
  await sendSide?.stop();
  await worker?.stop();
  await server?.close();
  await collectorClient?.close();
  outbox?.close();
  await proxy?.close();
  await temporal?.close();
  certificates?.remove();
  temp.cleanup();
});

describe('wa-lake on a Temporal that requires mTLS (ADR 0022)', () => {
  it('delivers a captured event into the lake through the mTLS endpoint', async () => {
    const pipeline = new EventPipeline({ outbox, logger: silentLogger(), getSelfJid: () => null });
    const messageId = `3EB0${randomUUID().replaceAll('-', '').slice(0, 20).toUpperCase()}`;
    const handled = pipeline.handle(
      'messages.upsert',
      {
        type: 'notify',
        messages: [
          {
            key: {
              remoteJid: '120363000000000071@g.us',
              fromMe: false,
              id: messageId,
              participant: '100000000000072@lid',
            },
            messageTimestamp: 1748772000,
            message: { conversation: 'through mTLS' },
          },
        ],
      },
      new Date()
    );
    const eventId = handled.eventIds[0];
    await expect
      .poll(
        async () =>
          (await server.pool.query('SELECT 1 FROM whatsapp_event_logs WHERE event_id = $1', [eventId])).rowCount,
        { timeout: 60_000, interval: 200 }
      )
      .toBe(1);
    expect(proxy.acceptedConnections).toBeGreaterThan(0);
  });

  it('sends a message accepted by the API through the mTLS endpoint to the collector socket', async () => {
    const apiKey = await createTestApiKey(server.admin, { accountId, self: [SELF] });
    const groupJid = await seedGroup(server.pool, [SELF]);
    const text = `mtls send ${randomUUID()}`;
    const response = await postMessage(server.url, apiKey.key, { to: groupJid, text, category: 'transactional' });
    expect(response.status).toBe(202);
    await expect.poll(() => double.wire.map((send) => send.text), { timeout: 60_000, interval: 200 }).toContain(text);
  });

  it('refuses a client that trusts the CA but has no client certificate', async () => {
    const refusedBefore = proxy.refusedHandshakes;
    await expect(
      Connection.connect({
        address: proxy.address,
        tls: {
          serverRootCACertificate: certificates.read(certificates.caCertPath),
          serverNameOverride: certificates.serverName,
        },
        connectTimeout: 5_000,
      })
    ).rejects.toThrow();
    const withoutClientCert = tlsEnv();
    delete withoutClientCert['TEMPORAL_TLS_CLIENT_CERT_PATH'];
    delete withoutClientCert['TEMPORAL_TLS_CLIENT_KEY_PATH'];
    await expect(
      runWorker({
        config: testWorkerConfig({
          WEBHOOK_URL: `${server.url}${INGEST_PATH}`,
          TEMPORAL_TASK_QUEUE: taskQueue,
          ...withoutClientCert,
        }),
        logger: silentLogger(),
        workflowBundle: bundle,
      })
    ).rejects.toThrow();
    expect(proxy.refusedHandshakes).toBeGreaterThan(refusedBefore);
  });
});
