import { proto } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { historyPush } from '../../fixtures/collector/history-push.js';
import { runCli } from '../../helpers/run-cli.js';
import { startLiveCollector } from '../../helpers/live-collector.js';
import { GROUP_A } from '../../helpers/socket-double.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const T = Date.parse('2026-03-01T12:00:00Z');
const message = (id: string, minutesAgo: number) => ({
  key: { remoteJid: GROUP_A, fromMe: false, id, participant: '100000000000001@lid' },
  messageTimestamp: (T - minutesAgo * 60_000) / 1000,
  message: { conversation: `message ${id}` },
});

describe('wa-lake backfill through a live collector (ADR 0016)', () => {
  it('queues a backfill; the collector asks WhatsApp page by page and tells the lake what it filled', async () => {
    const {
      collector,
      socket,
      cliEnv: env,
    } = await startLiveCollector(cleanups, 'backfill', {
      BACKFILL_REQUEST_INTERVAL_MS: '1000',
    });
    // The phone answers each request with the two messages before the key asked, as an ON_DEMAND push.
    const pages: Record<string, Array<Record<string, unknown>>> = {
      M0: [message('M1', 30), message('M2', 60)],
      M2: [message('M3', 90), message('M4', 24 * 60)],
    };
    const asked: string[] = [];
    socket.fetchMessageHistory = vi.fn((count: number, key: { id: string }) => {
      asked.push(`${key.id}/${String(count)}`);
      const page = pages[key.id] ?? [];
      setImmediate(() =>
        socket.ev.emit(
          'messaging-history.set',
          historyPush([{ id: GROUP_A, messages: page }], {
            syncType: proto.HistorySync.HistorySyncType.ON_DEMAND,
          }) as never
        )
      );
      return Promise.resolve('pdo-request-id');
    });
    socket.ev.emit('connection.update', { connection: 'open' });

    // No lake at hand (no DATABASE_URL): the backfill starts before the next message the collector stores.
    const queued = await runCli(['backfill', '--group', GROUP_A, '--since', '2026-03-01'], { env });
    expect(queued.stderr).toBe('');
    expect(queued.stdout).toContain('before the next message the collector stores for the group');
    // The collector reads new backfills at its next tick; M0 (repeated, one row) is the next message it stores.
    await vi.waitFor(
      () => {
        socket.ev.emit('messages.upsert', { type: 'notify', messages: [message('M0', 0)] });
        expect(asked.length).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 200 }
    );

    const bodies = () =>
      collector.outbox
        .listDue(1000, Date.now() + 1)
        .map((row) => JSON.parse(row.body) as { type: string; source?: string; payload: Record<string, unknown> });
    await vi.waitFor(() => expect(bodies().some((body) => body.type === 'collector.backfill')).toBe(true), {
      timeout: 20_000,
    });
    expect(asked).toEqual(['M0/50', 'M2/50']);
    const fetched = bodies().filter((body) => body.source === 'on_demand');
    expect(fetched.map((body) => (body.payload['key'] as { id: string }).id).sort()).toEqual(['M1', 'M2', 'M3', 'M4']);
    expect(bodies().find((body) => body.type === 'collector.backfill')?.payload).toMatchObject({
      group_jid: GROUP_A,
      state: 'covered',
      from_ms: Date.parse('2026-03-01T00:00:00Z'),
      to_ms: T,
      pages: 2,
      messages: 4,
    });
  });
});

describe('gap backfill after a reconnect (ADR 0016)', () => {
  it('asks, on the reopened session, for the history before the first message after the gap, back to its start', async () => {
    const { collector, doubles } = await startLiveCollector(cleanups, 'gap-backfill', {
      BACKFILL_REQUEST_INTERVAL_MS: '1000',
      BACKFILL_AFTER_GAP_MS: '1',
      SESSION_RECONNECT_BASE_DELAY_MS: '10',
      SESSION_RECONNECT_MAX_DELAY_MS: '20',
    });
    const bodies = () =>
      collector.outbox
        .listDue(1000, Date.now() + 1)
        .map((row) => JSON.parse(row.body) as { type: string; source?: string; payload: Record<string, unknown> });
    const sessionEvents = () => bodies().filter((body) => body.type === 'collector.session');
    await vi.waitFor(() => expect(doubles.sockets).toHaveLength(1));
    doubles.sockets[0]!.ev.emit('connection.update', { connection: 'open' });
    await vi.waitFor(() => expect(sessionEvents()).toHaveLength(1));

    // The connection drops (428): the gap starts; the collector reconnects on a new socket.
    const beforeGapMs = Date.now();
    doubles.sockets[0]!.close(428);
    await vi.waitFor(() => expect(doubles.sockets).toHaveLength(2));
    const socket = doubles.sockets[1]!;
    const asked: string[] = [];
    // The phone answers the first page with a message from before the gap: the gap is covered.
    socket.fetchMessageHistory = vi.fn((count: number, key: { id: string }) => {
      asked.push(`${key.id}/${String(count)}`);
      const page = key.id === 'AFTER-GAP' ? [message('IN-GAP', 5), message('BEFORE-GAP', 120)] : [];
      setImmediate(() =>
        socket.ev.emit(
          'messaging-history.set',
          historyPush([{ id: GROUP_A, messages: page }], {
            syncType: proto.HistorySync.HistorySyncType.ON_DEMAND,
          }) as never
        )
      );
      return Promise.resolve('pdo-request-id');
    });
    socket.ev.emit('connection.update', { connection: 'open' });
    await vi.waitFor(() =>
      expect(sessionEvents().map((body) => body.payload['state'])).toEqual(['open', 'closed', 'open'])
    );
    const closedAtMs = Number(sessionEvents()[1]?.payload['at_ms']);
    expect(closedAtMs).toBeGreaterThanOrEqual(beforeGapMs);

    // The first group message after the gap anchors the backfill of its group.
    const afterGap = { ...message('AFTER-GAP', 0), messageTimestamp: Math.ceil(Date.now() / 1000) + 60 };
    await vi.waitFor(
      () => {
        socket.ev.emit('messages.upsert', { type: 'notify', messages: [afterGap] });
        expect(asked.length).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 200 }
    );
    await vi.waitFor(() => expect(bodies().some((body) => body.type === 'collector.backfill')).toBe(true), {
      timeout: 20_000,
    });
    expect(asked).toEqual(['AFTER-GAP/50']);
    expect(
      bodies()
        .filter((body) => body.source === 'on_demand')
        .map((body) => (body.payload['key'] as { id: string }).id)
        .sort()
    ).toEqual(['BEFORE-GAP', 'IN-GAP']);
    // The span from the gap's start to the anchor counts as observed (whatsapp_backfilled_periods).
    const done = bodies().find((body) => body.type === 'collector.backfill')?.payload;
    expect(done).toMatchObject({ group_jid: GROUP_A, state: 'covered', to_ms: afterGap.messageTimestamp * 1000 });
    expect(Number(done?.['from_ms'])).toBeGreaterThanOrEqual(beforeGapMs);
    expect(Number(done?.['from_ms'])).toBeLessThanOrEqual(closedAtMs);
  });
});
