import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { useDeliveryTestbed } from '../../helpers/delivery-testbed.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

// temporal.api.enums.v1.EventType wire values.
const ACTIVITY_TASK_SCHEDULED = 10;
const ACTIVITY_TASK_STARTED = 11;

const testbed = useDeliveryTestbed();

describe('deliverEvent on transient failures', () => {
  it('waits the Retry-After of a 429 before the next attempt', async () => {
    const ingest = await testbed.startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script((_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '7200' } } : undefined));
    const worker = await testbed.startWorker(ingest);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(worker.taskQueue, input);
    expect((await handle.result()).status).toBe(201);
    const events = (await handle.fetchHistory()).events ?? [];
    const eventTimeMs = (type: number): number => {
      const seconds = events.find((event) => Number(event.eventType) === type)?.eventTime?.seconds;
      return Number(seconds ?? 0) * 1_000;
    };
    // The last attempt's start is recorded; with Retry-After honoured it is ≥ 2 h (workflow time) after scheduling.
    expect(eventTimeMs(ACTIVITY_TASK_STARTED) - eventTimeMs(ACTIVITY_TASK_SCHEDULED)).toBeGreaterThanOrEqual(7_200_000);
    expect(ingest.requests).toHaveLength(2);
  });

  it('keeps retrying while the connection is refused, then delivers once the ingest is up', async () => {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const worker = await testbed.startWorker({
      webhookUrl: `${url}/api/webhooks/whatsapp`,
      alertUrl: `${url}/alerts`,
    });
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(worker.taskQueue, input);
    await testbed.env.sleep('10 minutes');
    const pending = (await handle.describe()).raw.pendingActivities?.[0];
    expect(pending?.attempt).toBeGreaterThan(2);
    expect(pending?.lastFailure?.applicationFailureInfo?.type).toBe('IngestTransientError');
    const ingest = await testbed.startFakeIngest({ secrets: [TEST_SECRET], port });
    expect((await handle.result()).status).toBe(201);
    expect([...ingest.rows.keys()]).toEqual([input.eventId]);
  });

  it('survives a three-day outage with one row and a bounded history', async () => {
    const ingest = await testbed.startFakeIngest({ secrets: [TEST_SECRET] });
    let isDown = true;
    ingest.script(() => (isDown ? { status: 503, body: { code: 'WA_ERR_DB_UNAVAILABLE' } } : undefined));
    const worker = await testbed.startWorker(ingest);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(worker.taskQueue, input);
    await testbed.env.sleep('3 days');
    isDown = false;
    expect((await handle.result()).status).toBe(201);
    expect(ingest.requests.length).toBeGreaterThan(100);
    expect(ingest.rows.size).toBe(1);
    const history = await handle.fetchHistory();
    expect(history.events?.length ?? 0).toBeLessThan(25);
  });
});
