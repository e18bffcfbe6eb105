import { WorkflowFailedError } from '@temporalio/client';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../helpers/silent-logger.js';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { startIngestServer, type RunningIngestServer } from '../../../ingest-api/server.js';
import { listDeadLetters } from '../../../ops/index.js';
import { WA_DELIVERY_STATE } from '../../../workflows/contracts.js';
import { useDeliveryTestbed } from '../../helpers/delivery-testbed.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { startCuttableTcpProxy, startFrontProxy, type CuttableTcpProxy } from '../../helpers/fake-ingest-proxies.js';
import { decodeFailureMessage, decodeStoredPayload, TEST_SECRET } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { newDeliverInput, type TestWorker } from '../../helpers/temporal-worker.js';

// ADR 0002: the replan's six failure scenarios through the REAL ingest API and PostgreSQL.
const OTHER_SECRET = 'rotated-secret-0123456789abcdefgh';
const testbed = useDeliveryTestbed();
// File-wide: the lake pool, a TCP proxy in front of PostgreSQL (to cut the database) and the alert receiver.
let lake: pg.Pool;
let dbProxy: CuttableTcpProxy;
let alerts: FakeIngest;

beforeAll(async () => {
  const databaseUrl = inject('databaseUrl');
  const target = new URL(databaseUrl);
  [dbProxy, alerts] = await Promise.all([
    startCuttableTcpProxy({ host: target.hostname, port: Number(target.port) }),
    startFakeIngest({ secrets: [] }),
  ]);
  lake = new pg.Pool({ connectionString: databaseUrl, max: 2 });
});
// A test that fails while the database is cut must not leave the next ones without it.
afterEach(() => dbProxy?.setDown(false));
afterAll(async () => {
  await lake?.end();
  await dbProxy?.close();
  await alerts?.close();
});

/** Starts the real ingest API through the database proxy; it is closed after the current test. */
async function startIngest(options: { secrets?: string[]; port?: number } = {}): Promise<RunningIngestServer> {
  const viaProxy = new URL(inject('databaseUrl'));
  viaProxy.port = String(dbProxy.port);
  const config = loadIngestConfig({
    DATABASE_URL: viaProxy.toString(),
    WHATSAPP_WEBHOOK_SECRET: (options.secrets ?? [TEST_SECRET]).join(','),
    INGEST_PORT: String(options.port ?? 0),
    LOG_LEVEL: 'silent',
  });
  const server = await startIngestServer({ config, logger: silentLogger() });
  testbed.defer(() => server.close());
  return server;
}

function worker(baseUrl: string): Promise<TestWorker> {
  return testbed.startWorker({ webhookUrl: `${baseUrl}${INGEST_PATH}`, alertUrl: alerts.alertUrl });
}

async function rowsOf(eventId: string): Promise<Array<{ sanitized: boolean; payload: unknown }>> {
  return (
    await lake.query<{ sanitized: boolean; payload: unknown }>(
      'SELECT sanitized, payload FROM whatsapp_event_logs WHERE event_id = $1',
      [eventId]
    )
  ).rows;
}

describe('six failure scenarios', () => {
  it('ingest down: retries while the port refuses connections, then stores one row', async () => {
    const port = await findFreePort();
    const { taskQueue } = await worker(`http://127.0.0.1:${port}`);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(taskQueue, input);
    await testbed.env.sleep('30 minutes');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await startIngest({ port });
    expect(await handle.result()).toMatchObject({ status: 201, outcome: 'stored' });
    expect(await rowsOf(input.eventId)).toHaveLength(1);
  });

  // Also: the ingest answers 503 for three simulated hours, then 201.
  it('database down: 503 for three hours of workflow time is retried, then exactly one row and a completed workflow', async () => {
    const ingest = await startIngest();
    const { taskQueue } = await worker(ingest.url);
    dbProxy.setDown(true);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(taskQueue, input);
    await waitUntil(
      async () =>
        // Failure messages are encrypted in Temporal (ADR 0022); the test codec reads them back.
        (await decodeFailureMessage((await handle.describe()).raw.pendingActivities?.[0]?.lastFailure))?.includes(
          'HTTP 503'
        ) === true,
      { what: 'an attempt failed with 503' }
    );
    await testbed.env.sleep('3 hours');
    const during = await handle.describe();
    expect(during.status.name).toBe('RUNNING');
    expect(during.raw.pendingActivities?.[0]?.attempt).toBeGreaterThan(5);
    expect(await rowsOf(input.eventId)).toHaveLength(0);
    dbProxy.setDown(false);
    expect(await handle.result()).toMatchObject({ status: 201 });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect(await rowsOf(input.eventId)).toHaveLength(1);
  });

  it('response lost after commit: the retry gets 200 duplicate and the lake has one row', async () => {
    const ingest = await startIngest();
    let lostCount = 0;
    const proxy = await startFrontProxy(ingest.url, () => (lostCount += 1) === 1);
    testbed.defer(() => proxy.close());
    const { taskQueue } = await worker(proxy.url);
    const input = newDeliverInput();
    const result = await testbed.executeDeliverEvent(taskQueue, input);
    expect(result).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(lostCount).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(input.eventId)).toHaveLength(1);
  });

  it('poison payload: NUL and a lone surrogate are sanitized and stored with 201', async () => {
    const ingest = await startIngest();
    const { taskQueue } = await worker(ingest.url);
    const input = newDeliverInput({ payload: { text: 'bad\u0000byte \ud800 end', 'k\u0000ey': 1 } });
    const result = await testbed.executeDeliverEvent(taskQueue, input);
    expect(result).toMatchObject({ status: 201, outcome: 'stored' });
    const rows = await rowsOf(input.eventId);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sanitized).toBe(true);
  });

  it('permanent 422: dead-lettered with nothing lost and the body kept', async () => {
    const ingest = await startIngest();
    const { taskQueue } = await worker(ingest.url);
    const input = newDeliverInput({ payload: {} });
    const handle = await testbed.startDeliverEvent(taskQueue, input);
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('dead_lettered');
    expect(await rowsOf(input.eventId)).toHaveLength(0);
    const entry = (await listDeadLetters(testbed.env.client, { pageSize: 1_000 })).entries.find(
      (item) => item.eventId === input.eventId
    );
    expect(entry).toMatchObject({ httpStatus: 422, bodySizeBytes: Buffer.byteLength(input.body) });
    const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    // Encrypted at rest (architecture.md §14); the test codec's keys read it back.
    const kept = (await decodeStoredPayload(started?.input?.payloads?.[0])) as { body: string };
    expect(kept.body).toBe(input.body);
  });

  it('secret mismatch 401: alerts, keeps the event, and self-heals after the secret is fixed', async () => {
    const port = await findFreePort();
    const wrong = await startIngest({ secrets: [OTHER_SECRET], port });
    const { taskQueue, raised } = await worker(wrong.url);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(taskQueue, input);
    await waitUntil(() => raised.some((alert) => alert.kind === 'ingest_unauthorized'), {
      what: 'the alert was raised',
    });
    // The alert is a local activity: it can run before the workflow task that upserts the state completes.
    await waitUntil(
      async () => (await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE) === 'auth_blocked',
      { what: 'the workflow is marked auth_blocked' }
    );
    expect(alerts.alertBodies.some((body) => body.content.includes('ingest_unauthorized'))).toBe(true);
    await wrong.close();
    await startIngest({ secrets: [OTHER_SECRET, TEST_SECRET], port });
    expect(await handle.result()).toMatchObject({ status: 201 });
    expect(await rowsOf(input.eventId)).toHaveLength(1);
  });
});
