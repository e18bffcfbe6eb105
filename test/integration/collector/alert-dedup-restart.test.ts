import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AlertStateStore } from '../../../collector/alert-state-store.js';
import { OUTBOX_ALERT_KINDS, OutboxMonitor } from '../../../collector/outbox-monitor.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { runCollector } from '../../../collector/run-collector.js';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { createTestClient } from '../../helpers/temporal-env.js';
import {
  collectorConfigIn,
  createRecordingAlertSink,
  createRecordingLogger,
  createTempDir,
} from '../../helpers/collector-test-kit.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('collector alerts survive restarts', () => {
  it('a collector restarted during one Temporal outage sends one temporal_unreachable', async () => {
    const { dir, cleanup } = createTempDir('alert-outage');
    cleanups.push(cleanup);
    const connection = Connection.lazy({ address: `127.0.0.1:${await findFreePort()}` });
    cleanups.push(() => connection.close());
    const config = collectorConfigIn(dir, {
      OUTBOX_RELAY_START_TIMEOUT_MS: '300',
      OUTBOX_RELAY_RETRY_BASE_DELAY_MS: '1',
      OUTBOX_RELAY_RETRY_MAX_DELAY_MS: '20',
    });
    const runs: Array<{ alerts: string[]; unreachableLogs: () => number }> = [];
    for (let run = 0; run < 2; run++) {
      const { sink, alerts } = createRecordingAlertSink();
      const { logger, records } = createRecordingLogger();
      const collector = await runCollector({
        config,
        logger,
        alertSink: sink,
        temporalClient: createTestClient(connection),
        source: { kind: 'replay', path: EXAMPLE },
      });
      const unreachableLogs = (): number => records.filter((record) => record['msg'] === 'temporal unreachable').length;
      // Two failed drains: the first one's alert decision has been made by the time the second logs.
      await vi.waitFor(() => expect(unreachableLogs()).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 50 });
      await collector.stop();
      runs.push({ alerts: alerts.map((alert) => alert.kind), unreachableLogs });
    }
    expect(runs[0]!.alerts).toEqual(['temporal_unreachable']);
    expect(runs[1]!.alerts).toEqual([]);
  }, 90_000);

  it('two ledgers on one outbox file: one claim wins per window, and a later one after it', async () => {
    const { dir, cleanup } = createTempDir('alert-ledger');
    cleanups.push(cleanup);
    const clock = { now: 1_000_000 };
    const path = join(dir, 'outbox.sqlite');
    const outbox = OutboxStore.open({ path });
    const first = AlertStateStore.open({ path, now: () => clock.now });
    const second = AlertStateStore.open({ path, now: () => clock.now });
    cleanups.push(
      () => outbox.close(),
      () => first.close(),
      () => second.close()
    );
    await expect(first.claim('temporal_unreachable', 60_000)).resolves.toEqual({ isClaimed: true });
    await expect(second.claim('temporal_unreachable', 60_000)).resolves.toEqual({
      isClaimed: false,
      heldUntilMs: 1_060_000,
    });
    await expect(second.claim('outbox_dead_items', 60_000)).resolves.toEqual({ isClaimed: true });
    clock.now += 60_000;
    await expect(second.claim('temporal_unreachable', 60_000)).resolves.toEqual({ isClaimed: true });
  });

  it('does not report old dead rows again as new after a restart', async () => {
    const { dir, cleanup } = createTempDir('alert-dead');
    cleanups.push(cleanup);
    const path = join(dir, 'outbox.sqlite');
    const outbox = OutboxStore.open({ path });
    cleanups.push(() => outbox.close());
    const dead = (id: string) => ({ eventId: id, type: 'messages.upsert', chatJid: null, body: '{}', reason: 'test' });
    const monitorRun = () => {
      const state = AlertStateStore.open({ path });
      cleanups.push(() => state.close());
      const { sink, alerts } = createRecordingAlertSink();
      const monitor = new OutboxMonitor({
        outbox,
        alertSink: sink,
        logger: createRecordingLogger().logger,
        pendingThreshold: 1_000,
        oldestPendingAgeThresholdMs: 3_600_000,
        windowMs: 1,
        deadCountMark: { read: () => state.readMark('dead'), write: (value) => state.writeMark('dead', value) },
      });
      return { monitor, alerts };
    };
    outbox.enqueueDead([dead('00000000-0000-4000-8000-000000000001')], Date.now());
    const before = monitorRun();
    await before.monitor.check();
    expect(before.alerts.map((alert) => alert.kind)).toEqual([OUTBOX_ALERT_KINDS.deadItems]);

    const restarted = monitorRun();
    await restarted.monitor.check();
    expect(restarted.alerts).toEqual([]);
    outbox.enqueueDead([dead('00000000-0000-4000-8000-000000000002')], Date.now());
    await restarted.monitor.check();
    expect(restarted.alerts.map((alert) => alert.kind)).toEqual([OUTBOX_ALERT_KINDS.deadItems]);
  });
});
