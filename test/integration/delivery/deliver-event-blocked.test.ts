import { describe, expect, it } from 'vitest';
import { WA_DELIVERY_STATE } from '../../../workflows/contracts.js';
import { useDeliveryTestbed } from '../../helpers/delivery-testbed.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

const OTHER_SECRET = 'rotated-secret-0123456789abcdefgh';

const testbed = useDeliveryTestbed();

describe('deliverEvent while the whole endpoint is blocked', () => {
  it('alerts on a secret mismatch, keeps the event, and self-heals once the ingest accepts the secret', async () => {
    const fake = await testbed.startFakeIngest({ secrets: [OTHER_SECRET] });
    const worker = await testbed.startWorker(fake);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(worker.taskQueue, input);
    await waitUntil(
      async () => (await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE) === 'auth_blocked',
      { what: 'the workflow is marked auth_blocked' }
    );
    // A day at the 5-minute cap is ~290 blocked turns: the loop must continue-as-new to bound history.
    await testbed.env.sleep('1 day');
    expect(fake.rows.size).toBe(0);
    fake.setSecrets([OTHER_SECRET, TEST_SECRET]);
    expect((await handle.result()).status).toBe(201);
    const lastRun = await testbed.env.client.workflow.getHandle(input.eventId).describe();
    expect(lastRun.runId).not.toBe(handle.firstExecutionRunId);
    expect(lastRun.historyLength).toBeLessThan(1_500);
    expect(fake.rows.size).toBe(1);
    expect(fake.alertBodies).toHaveLength(1);
    expect(worker.raised.length).toBeGreaterThan(1);
  });

  it('treats a redirect as misconfiguration: never follows it, alerts, and delivers once fixed', async () => {
    const fake = await testbed.startFakeIngest({ secrets: [TEST_SECRET] });
    let isMisrouted = true;
    fake.script(() => (isMisrouted ? { status: 302, headers: { location: `${fake.baseUrl}/elsewhere` } } : undefined));
    const worker = await testbed.startWorker(fake);
    const input = newDeliverInput();
    const handle = await testbed.startDeliverEvent(worker.taskQueue, input);
    await waitUntil(
      async () => (await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE) === 'misconfigured',
      { what: 'the workflow is marked misconfigured' }
    );
    expect(worker.raised.map((alert) => alert.kind)).toContain('ingest_misconfigured');
    isMisrouted = false;
    expect((await handle.result()).status).toBe(201);
    expect(fake.requests.some((request) => request.path === '/elsewhere')).toBe(false);
    expect(fake.rows.size).toBe(1);
    expect((await handle.describe()).typedSearchAttributes.get(WA_DELIVERY_STATE)).toBe('delivered');
  });
});
