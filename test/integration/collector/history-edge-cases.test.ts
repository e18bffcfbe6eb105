import { afterEach, describe, expect, it, vi } from 'vitest';
import { historyPush } from '../../fixtures/collector/history-push.js';
import { startLiveCollector } from '../../helpers/live-collector.js';
import { GROUP_A } from '../../helpers/socket-double.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const text = (id: string, seconds: number) => ({
  key: { remoteJid: GROUP_A, fromMe: false, id, participant: '100000000000001@lid' },
  messageTimestamp: seconds,
  message: { conversation: `history ${id}` },
});

describe('a history push through a live collector (ADR 0016)', () => {
  it('keeps what arrived before a disconnect, and a resent chunk after the reconnect adds no row', async () => {
    const {
      collector,
      doubles,
      socket: first,
    } = await startLiveCollector(cleanups, 'history', {
      SESSION_RECONNECT_BASE_DELAY_MS: '10',
    });
    const rows = () => collector.outbox.listDue(1000, Date.now() + 1);
    first.ev.emit('connection.update', { connection: 'open' });
    await vi.waitFor(() => expect(rows().some((row) => row.type === 'collector.session')).toBe(true));
    const chunk1 = [text('H1', 1748760000), text('H2', 1748760060)];
    first.ev.emit('messaging-history.set', historyPush([{ id: GROUP_A, messages: chunk1 }], { progress: 50 }) as never);
    // The connection drops before the second chunk (428: connection closed by WhatsApp).
    first.close(428);
    await vi.waitFor(() => expect(doubles.sockets).toHaveLength(2));
    const second = doubles.sockets[1]!;
    second.ev.emit('connection.update', { connection: 'open' });
    // WhatsApp sends the push again from the start: chunk 1 repeated, then chunk 2.
    second.ev.emit(
      'messaging-history.set',
      historyPush([{ id: GROUP_A, messages: chunk1 }], { progress: 50 }) as never
    );
    const chunk2 = [text('H3', 1748760120)];
    second.ev.emit(
      'messaging-history.set',
      historyPush([{ id: GROUP_A, messages: chunk2 }], { progress: 100 }) as never
    );

    await vi.waitFor(() =>
      expect(
        rows()
          .filter((row) => row.type === 'collector.session')
          .map((row) => (JSON.parse(row.body) as { payload: { state: string; reason?: string } }).payload)
          .map(({ state, reason }) => (reason ? `${state}:${reason}` : state))
      ).toEqual(['open', 'closed:reconnecting', 'open'])
    );
    const history = rows()
      .filter((row) => row.type === 'messages.upsert')
      .map((row) => JSON.parse(row.body) as { payload: { key: { id: string } }; source: string });
    expect(history.map((body) => body.payload.key.id).sort()).toEqual(['H1', 'H2', 'H3']);
    expect(new Set(history.map((body) => body.source))).toEqual(new Set(['history']));
  });
});
