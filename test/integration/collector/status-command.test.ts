import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi, afterEach, describe, expect, it } from 'vitest';
import { readCollectorStatus } from '../../../collector/heartbeat.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { historyPush } from '../../fixtures/collector/history-push.js';
import { runCli } from '../../helpers/run-cli.js';
import { startLiveCollector } from '../../helpers/live-collector.js';
import { GROUP_A } from '../../helpers/socket-double.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface StatusJson {
  session: { state: string; stoppedAt: string | null } | null;
  isHealthy: boolean;
}

describe('wa-lake status after the collector stops cleanly', () => {
  it('says stopped at once, not healthy until the heartbeat goes stale, and the healthcheck fails', async () => {
    const extra = { HEARTBEAT_INTERVAL_MS: '60000', TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const { collector, socket, cliEnv } = await startLiveCollector(cleanups, 'status', extra);
    const env = { ...cliEnv, ...extra };
    socket.ev.emit('connection.update', { connection: 'open' });
    expect((await runCli(['status', '--healthcheck'], { env })).code).toBe(0);

    await collector.stop();

    // Three reads of the same stopped state: run side by side.
    const [healthcheck, json, text] = await Promise.all([
      runCli(['status', '--healthcheck'], { env }),
      runCli(['status', '--json'], { env }),
      runCli(['status'], { env }),
    ]);
    expect(healthcheck.code).toBe(1);
    const report = JSON.parse(json.stdout) as StatusJson;
    expect(report.isHealthy).toBe(false);
    expect(report.session?.state).toBe('stopped');
    expect(report.session?.stoppedAt).toEqual(expect.any(String));
    expect(text.stdout).toContain('session      : stopped at');
    expect(text.stdout).toContain('no collector is running');
  }, 120_000);
});

// Fix-a-thon defect 3: a status file left by a collector that died without recording a stop (SIGKILL, a
// crash) said "replay since … (pid N)" and passed the healthcheck while its heartbeat was fresh.
describe('wa-lake status when the pid of the status file is gone', () => {
  it('says not running and the healthcheck fails, although the heartbeat is fresh', async () => {
    const { dir, cleanup } = createTempDir('status-gone');
    cleanups.push(cleanup);
    const env = { OUTBOX_PATH: join(dir, 'outbox.sqlite'), TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const gonePid = spawnSync(process.execPath, ['-e', '']).pid;
    const now = new Date().toISOString();
    const status = {
      sessionState: 'replay',
      sessionStateSince: now,
      pid: gonePid,
      startedAt: now,
      lastHeartbeatAt: now,
      stoppedAt: null,
    };
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify(status));

    const [healthcheck, json, text] = await Promise.all([
      runCli(['status', '--healthcheck'], { env }),
      runCli(['status', '--json'], { env }),
      runCli(['status'], { env }),
    ]);
    expect(healthcheck.code).toBe(1);
    const report = JSON.parse(json.stdout) as StatusJson;
    expect(report.isHealthy).toBe(false);
    expect(text.stdout).toContain(`session      : not running — pid ${gonePid} is gone`);
  }, 120_000);
});

describe('wa-lake status when the heartbeat is dated ahead of the clock', () => {
  it('fails the healthcheck for a beat more than an interval ahead, passes one a few seconds ahead', async () => {
    const { dir, cleanup } = createTempDir('status-ahead');
    cleanups.push(cleanup);
    const env = { OUTBOX_PATH: join(dir, 'outbox.sqlite'), TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const status = (aheadMs: number) => {
      const now = new Date().toISOString();
      const beat = new Date(Date.now() + aheadMs).toISOString();
      return { sessionState: 'open', sessionStateSince: now, pid: process.pid, startedAt: now, lastHeartbeatAt: beat };
    };
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify({ ...status(3_600_000), stoppedAt: null }));
    expect((await runCli(['status', '--healthcheck'], { env })).code).toBe(1);
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify({ ...status(5_000), stoppedAt: null }));
    expect((await runCli(['status', '--healthcheck'], { env })).code).toBe(0);
  }, 120_000);
});

describe('wa-lake status during a history import (ADR 0016)', () => {
  it('shows the import with WhatsApp’s percentage, the events kept, their rate and the ETA, as pushes arrive', async () => {
    const extra = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const { config, socket, cliEnv } = await startLiveCollector(cleanups, 'status-history', extra);
    const env = { ...cliEnv, ...extra };
    socket.ev.emit('connection.update', { connection: 'open' });
    const messages = ['H1', 'H2', 'H3'].map((id, index) => ({
      key: { remoteJid: GROUP_A, fromMe: false, id, participant: '100000000000001@lid' },
      messageTimestamp: 1_764_000_000 + index,
      message: { conversation: `history ${id}` },
    }));
    // Two pushes: one alone spans no time to measure a rate over. A second inside the status file's
    // one-second throttle is written when that second ends, not at the next heartbeat.
    socket.ev.emit(
      'messaging-history.set',
      historyPush([{ id: GROUP_A, messages: messages.slice(0, 1) }], { progress: 25 }) as never
    );
    socket.ev.emit(
      'messaging-history.set',
      historyPush([{ id: GROUP_A, messages: messages.slice(1) }], { progress: 50 }) as never
    );
    await vi.waitFor(() => expect(readCollectorStatus(config.COLLECTOR_STATUS_PATH)?.historyImport?.pushes).toBe(2), {
      timeout: 10_000,
    });

    const [text, jsonRun] = await Promise.all([runCli(['status'], { env }), runCli(['status', '--json'], { env })]);
    expect(text.stdout).toMatch(
      /history {6}: RECENT import running, 50 % per WhatsApp, 3 events kept in 2 pushes at [\d,]+\/s, ETA \d+ s \(last push \d+ s ago\)/
    );
    const json = JSON.parse(jsonRun.stdout) as {
      historyImport: { items: number; percent: number; isDone: boolean; syncType: string };
    };
    expect(json.historyImport).toMatchObject({ items: 3, percent: 50, isDone: false, syncType: 'RECENT' });
  }, 120_000);
});

// ADR 0016: WhatsApp's last push (100 %) ends its part; the import is over for the lake only once every history
// event has left the outbox for Temporal.
describe('wa-lake status while a finished history import is still queued in the outbox', () => {
  it('says in progress with the queued count until the last history event is handed over, then done', async () => {
    const { dir, cleanup } = createTempDir('status-history-queued');
    cleanups.push(cleanup);
    const env = { OUTBOX_PATH: join(dir, 'outbox.sqlite'), TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const now = new Date().toISOString();
    const historyImport = {
      percent: 100,
      items: 3,
      itemsPerSecond: 2,
      etaMs: 0,
      syncType: 'INITIAL_BOOTSTRAP',
      pushes: 2,
      startedAt: now,
      updatedAt: now,
      isDone: true,
    };
    const status = {
      sessionState: 'open',
      sessionStateSince: now,
      pid: process.pid,
      startedAt: now,
      lastHeartbeatAt: now,
      stoppedAt: null,
      historyImport,
    };
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify(status));
    const row = (source: string | undefined) => ({
      eventId: randomUUID(),
      type: 'messages.upsert',
      chatJid: GROUP_A,
      body: JSON.stringify({ type: 'messages.upsert', chat_jid: GROUP_A, payload: {}, captured_at: now, source }),
    });
    const history = [row('history'), row('history'), row('on_demand')];
    const outbox = OutboxStore.open({ path: env.OUTBOX_PATH });
    try {
      outbox.enqueueBatch([...history, row(undefined)], Date.now());

      const [text, jsonRun] = await Promise.all([runCli(['status'], { env }), runCli(['status', '--json'], { env })]);
      expect(text.stdout).toContain(
        'history      : INITIAL_BOOTSTRAP import in progress: WhatsApp sent all of it (100 %'
      );
      expect(text.stdout).toContain('3 history events still queued in the outbox (not yet handed to Temporal)');
      expect(text.stdout).not.toContain('import done');
      const json = JSON.parse(jsonRun.stdout) as {
        outbox: { pendingHistory: number };
        historyImport: { isDone: boolean; isHandedOver: boolean };
      };
      expect(json.outbox.pendingHistory).toBe(3);
      expect(json.historyImport).toMatchObject({ isDone: true, isHandedOver: false });

      outbox.markStarted(
        history.map((event) => event.eventId),
        Date.now()
      );
      const handedOver = await runCli(['status'], { env });
      expect(handedOver.stdout).toContain(`history      : INITIAL_BOOTSTRAP import done at ${now}: 3 events kept`);
    } finally {
      outbox.close();
    }
  }, 120_000);
});
