import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Alert, AlertSink } from '../../../common/alert-sink.js';
import { createRootLogger } from '../../../common/logger.js';
import { OUTBOX_ALERT_KINDS, OutboxMonitor } from '../../../collector/outbox-monitor.js';
import { openTempOutbox } from '../../fixtures/collector/temp-outbox.js';

const MINUTE_MS = 60_000;

/** A sink that counts every alert it is handed and never deduplicates. */
function countingSink(): AlertSink & { alerts: Alert[] } {
  const alerts: Alert[] = [];
  return { alerts, send: (alert) => Promise.resolve(alerts.push(alert) > 0) };
}

const rows = (count: number) =>
  Array.from({ length: count }, () => ({
    eventId: randomUUID(),
    type: 'messages.upsert',
    chatJid: '120363000000000001@g.us',
    body: '{}',
  }));

describe('OutboxMonitor', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  let clockMs: number;
  let sink: ReturnType<typeof countingSink>;
  let monitor: OutboxMonitor;

  beforeEach(() => {
    temp = openTempOutbox();
    clockMs = 0;
    sink = countingSink();
    monitor = new OutboxMonitor({
      outbox: temp.outbox,
      alertSink: sink,
      logger: createRootLogger({ level: 'silent' }),
      pendingThreshold: 5,
      oldestPendingAgeThresholdMs: 10 * MINUTE_MS,
      windowMs: 15 * MINUTE_MS,
      now: () => clockMs,
    });
  });
  afterEach(() => {
    monitor.stop();
    temp.cleanup();
  });

  it('raises nothing while the outbox is healthy', async () => {
    temp.outbox.enqueueBatch(rows(5), 0);
    for (let tick = 0; tick < 10; tick++) {
      clockMs += MINUTE_MS / 2;
      await monitor.check();
    }
    expect(sink.alerts).toEqual([]);
  });

  it('raises the pending-count alert once per window over many ticks, not once per tick', async () => {
    temp.outbox.enqueueBatch(rows(6), 0);
    for (let tick = 0; tick < 60; tick++) {
      await monitor.check();
      clockMs += 20_000;
      temp.outbox.enqueueBatch(rows(1), clockMs);
    }
    // 60 ticks × 20 s = 20 min: the first tick alerts, the next alert is due 15 min later.
    const pendingAlerts = sink.alerts.filter((alert) => alert.kind === OUTBOX_ALERT_KINDS.pendingHigh);
    expect(pendingAlerts).toHaveLength(2);
    expect(pendingAlerts[0]?.details).toMatchObject({ pending: 6, threshold: 5 });
  });

  it('raises the stale-pending alert once per window when the oldest pending row is too old', async () => {
    temp.outbox.enqueueBatch(rows(1), 0);
    const raised: string[][] = [];
    for (let tick = 0; tick < 100; tick++) {
      clockMs += 30_000;
      raised.push((await monitor.check()).alertsRaised);
    }
    // Stale after 10 min (tick 20), then again 15 min later (tick 50) and (tick 80): 3 alerts in 50 min.
    expect(sink.alerts.map((alert) => alert.kind)).toEqual([
      OUTBOX_ALERT_KINDS.pendingStale,
      OUTBOX_ALERT_KINDS.pendingStale,
      OUTBOX_ALERT_KINDS.pendingStale,
    ]);
    expect(raised.filter((kinds) => kinds.length > 0)).toHaveLength(3);
  });

  it('alerts when rows go dead, and not again for the same dead rows', async () => {
    await monitor.check();
    temp.outbox.enqueueDead([{ ...rows(1)[0]!, reason: 'body too large' }], 0);
    const health = await monitor.check();
    expect(health).toMatchObject({
      counts: { pending: 0, started: 0, dead: 1 },
      alertsRaised: [OUTBOX_ALERT_KINDS.deadItems],
    });
    clockMs += 60 * MINUTE_MS;
    await monitor.check();
    expect(sink.alerts.map((alert) => alert.kind)).toEqual([OUTBOX_ALERT_KINDS.deadItems]);
  });

  it('keeps checking when the alert sink fails', async () => {
    const failing: AlertSink = { send: () => Promise.reject(new Error('webhook down')) };
    const fragile = new OutboxMonitor({
      outbox: temp.outbox,
      alertSink: failing,
      logger: createRootLogger({ level: 'silent' }),
      pendingThreshold: 0,
      oldestPendingAgeThresholdMs: MINUTE_MS,
      windowMs: MINUTE_MS,
      now: () => clockMs,
    });
    temp.outbox.enqueueBatch(rows(1), 0);
    await expect(fragile.check()).resolves.toMatchObject({ alertsRaised: [OUTBOX_ALERT_KINDS.pendingHigh] });
  });
});
