import { afterEach, describe, expect, it, vi } from 'vitest';
import { readCollectorStatus } from '../../../collector/heartbeat.js';
import { runCollector, type CollectorHandle } from '../../../collector/run-collector.js';
import type { SocketFactory } from '../../../collector/session/baileys-socket.js';
import { createLazyTemporalClient } from '../../../common/lazy-temporal-client.js';
import { startDevTemporal } from '../../helpers/temporal-dev.js';
import { createDoubleFactory, GROUP_A } from '../../helpers/socket-double.js';
import {
  collectorConfigIn,
  createRecordingAlertSink,
  createRecordingLogger,
  createTempDir,
} from '../../helpers/collector-test-kit.js';

// ADR 0018: SIGTERM while Temporal (and WhatsApp) are unreachable must not wait out a back-off or a
// workflow start's deadline; `docker stop` kills after 10 s. The bound below is generous (the fixed stop
// takes well under a second); what it rules out is waiting for the 8 s back-off or the 60 s start deadline.
// The 5 s figure itself is measured on the real process by scripts/test-container.sh.
const STOP_BOUND_MS = 5_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const message = (id: string) => ({
  type: 'notify' as const,
  messages: [
    {
      key: { remoteJid: GROUP_A, fromMe: false, id, participant: '100000000000001@lid' },
      messageTimestamp: 1748772000,
      message: { conversation: 'hi' },
    },
  ],
});

/** WhatsApp unreachable: every connection attempt fails as a DNS failure does. */
const unreachableWhatsApp: SocketFactory = () =>
  Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND web.whatsapp.com'), { code: 'ENOTFOUND' }));

async function startCollector(address: string, socketFactory: SocketFactory) {
  const { dir, cleanup } = createTempDir('stop');
  cleanups.push(cleanup);
  // A start deadline far above the bound: a stop that waited for the start in flight would fail the test.
  const config = collectorConfigIn(dir, { TEMPORAL_ADDRESS: address, OUTBOX_RELAY_START_TIMEOUT_MS: '60000' });
  const temporal = createLazyTemporalClient(config.temporal);
  cleanups.push(() => temporal.close());
  const logs = createRecordingLogger();
  const collector = await runCollector({
    config,
    logger: logs.logger,
    alertSink: createRecordingAlertSink().sink,
    temporalClient: temporal.client,
    source: { kind: 'live' },
    socketFactory,
    send: { accountId: 'stop-test' },
  });
  cleanups.push(() => collector.stop());
  return { config, collector, records: logs.records };
}

async function timedStop(collector: CollectorHandle): Promise<number> {
  const startedAt = performance.now();
  await collector.stop();
  return performance.now() - startedAt;
}

describe('collector stop with Temporal unreachable (ADR 0018)', () => {
  it('Temporal killed under a running collector: stops at once with a workflow start in flight, stop recorded', async () => {
    const temporal = await startDevTemporal();
    cleanups.push(() => temporal.close().catch(() => undefined));
    const doubles = createDoubleFactory();
    const { config, collector, records } = await startCollector(temporal.server.address, doubles.factory);
    await vi.waitFor(() => expect(doubles.sockets).toHaveLength(1));
    const socket = doubles.sockets[0]!;
    socket.ev.emit('connection.update', { connection: 'open' });
    await vi.waitFor(() => expect(records.some((r) => r['msg'] === 'session send worker started')).toBe(true), {
      timeout: 30_000,
    });

    await temporal.server.kill();
    socket.ev.emit('messages.upsert', message('3EB0STOP00000000000001'));
    await vi.waitFor(() => expect(collector.outbox.countByState().pending).toBeGreaterThan(0));

    expect(await timedStop(collector)).toBeLessThan(STOP_BOUND_MS);
    expect(readCollectorStatus(config.COLLECTOR_STATUS_PATH)).toMatchObject({ sessionState: 'stopped' });
    expect(readCollectorStatus(config.COLLECTOR_STATUS_PATH)?.stoppedAt).toEqual(expect.any(String));
  }, 90_000);

  it('Temporal and WhatsApp down from the start: the send worker’s back-off does not hold the stop', async () => {
    const temporal = await startDevTemporal();
    const address = temporal.server.address;
    await temporal.close();
    const { config, collector, records } = await startCollector(address, unreachableWhatsApp);
    // Stop right as the fourth back-off (8 s) begins: the stop must not wait it out.
    await vi.waitFor(
      () =>
        expect(
          records.some((r) => r['msg'] === 'session send worker cannot run; retrying' && r['delayMs'] === 8_000)
        ).toBe(true),
      { timeout: 60_000, interval: 20 }
    );

    expect(await timedStop(collector)).toBeLessThan(STOP_BOUND_MS);
    const status = readCollectorStatus(config.COLLECTOR_STATUS_PATH);
    expect(status).toMatchObject({ sessionState: 'stopped' });
    expect(status?.stoppedAt).toEqual(expect.any(String));
    expect(records.filter((r) => r['msg'] === 'session send worker started')).toHaveLength(0);
  }, 90_000);
});
