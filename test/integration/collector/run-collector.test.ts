import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi, afterEach, describe, expect, it } from 'vitest';
import { readCollectorStatus } from '../../../collector/heartbeat.js';
import { InstanceLockedError } from '../../../collector/instance-lock.js';
import { runCollector, type CollectorHandle } from '../../../collector/run-collector.js';
import { createDoubleFactory, GROUP_A } from '../../helpers/socket-double.js';
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

function setup() {
  const { dir, cleanup } = createTempDir('run');
  cleanups.push(cleanup);
  return { dir, config: collectorConfigIn(dir), logger: createRecordingLogger(), alerts: createRecordingAlertSink() };
}

const message = (remoteJid: string, id: string) => ({
  type: 'notify' as const,
  messages: [
    {
      key: { remoteJid, fromMe: false, id, participant: '100000000000001@lid' },
      messageTimestamp: 1748772000,
      message: { conversation: 'hi' },
    },
  ],
});

describe('runCollector', () => {
  it('live: stores group events and snapshots in the outbox, records the capture, writes the status file', async () => {
    const { dir, config, logger, alerts } = setup();
    const doubles = createDoubleFactory();
    const recordPath = join(dir, 'capture.jsonl');
    const collector = await runCollector({
      config,
      logger: logger.logger,
      alertSink: alerts.sink,
      temporalClient: null,
      source: { kind: 'live' },
      recordPath,
      socketFactory: doubles.factory,
    });
    cleanups.push(() => collector.stop());
    await vi.waitFor(() => expect(doubles.sockets).toHaveLength(1));
    const socket = doubles.sockets[0]!;
    socket.ev.emit('creds.update', { advSecretKey: 'c2VjcmV0LWtleQ==' });
    socket.ev.emit('connection.update', { connection: 'open' });
    socket.ev.emit('messages.upsert', message(GROUP_A, '3EB0RUN000000000000001'));
    socket.ev.emit('messages.upsert', message('5500000000002@s.whatsapp.net', '3EB0RUN000000000000002'));
    // One group message, two snapshots, and the collector's own `collector.session` open (ADR 0016).
    await vi.waitFor(() => expect(collector.outbox.countByState().pending).toBe(4));
    expect(collector.outbox.listDue(100, Date.now() + 1).map((row) => row.type)).toContain('collector.session');
    const bodies = collector.outbox.listDue(100, Date.now() + 1).map((row) => row.body);
    expect(bodies.join('\n') + JSON.stringify(logger.records)).not.toContain('c2VjcmV0LWtleQ==');

    await expect(
      runCollector({
        config,
        logger: logger.logger,
        alertSink: alerts.sink,
        temporalClient: null,
        source: { kind: 'live' },
        socketFactory: doubles.factory,
      })
    ).rejects.toBeInstanceOf(InstanceLockedError);

    await collector.stop();
    const types = readFileSync(recordPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(types.sort()).toEqual([
      'connection.update',
      'groups.metadata',
      'groups.metadata',
      'messages.upsert',
      'messages.upsert',
    ]);
    expect(readFileSync(recordPath, 'utf8')).not.toContain('c2VjcmV0LWtleQ==');
    expect(readCollectorStatus(config.COLLECTOR_STATUS_PATH)).toMatchObject({
      mode: 'live',
      sessionState: 'stopped',
      // … and the `collector.session` close the stop wrote before the outbox closed.
      outbox: { pending: 5, started: 0, dead: 0 },
    });
  });

  it('replay: feeds a capture through the same pipeline; a second run adds nothing', async () => {
    const { config, logger, alerts } = setup();
    const run = async (): Promise<CollectorHandle> => {
      const handle = await runCollector({
        config,
        logger: logger.logger,
        alertSink: alerts.sink,
        temporalClient: null,
        source: { kind: 'replay', path: EXAMPLE },
      });
      cleanups.push(() => handle.stop());
      return handle;
    };
    const first = await run();
    const summary = await first.replayDone!;
    expect(summary.inserted).toBe(summary.eventIds.size);
    await first.stop();
    expect(readCollectorStatus(config.COLLECTOR_STATUS_PATH)).toMatchObject({
      mode: 'replay',
      outbox: { pending: summary.eventIds.size },
    });

    const second = await run();
    await expect(second.replayDone).resolves.toMatchObject({ inserted: 0, duplicates: summary.kept - summary.dead });
    expect(second.outbox.countByState().pending).toBe(summary.eventIds.size);
  });
});
