import { describe, expect, it } from 'vitest';
import type { WireSend } from '../../../cli/demo-send/simulated-whatsapp.js';
import { isChaosSendClean, measureChaosSend, type ChaosSendRow } from '../../chaos/chaos-send-measure.js';
import { waitUntilSettled } from '../../chaos/chaos-send-settle.js';

const row = (id: string, state: string): ChaosSendRow => ({ id, state, wa_message_id: `WA-${id}` });
const wire = (id: string, text = `text ${id}`): WireSend => ({
  jid: '5511970000001@s.whatsapp.net',
  text,
  messageId: `WA-${id}`,
  atMs: 0,
});

describe('measureChaosSend', () => {
  it('counts a retry under the same id once and passes when every row settled as the wire says', () => {
    const figures = measureChaosSend(
      [row('a', 'read'), row('b', 'read'), row('c', 'failed'), row('d', 'expired')],
      [wire('a'), wire('a'), wire('b')]
    );
    expect(figures).toMatchObject({ wireSends: 3, distinctWireIds: 2, dispatched: 2, underTwoIds: 0 });
    expect(isChaosSendClean(figures)).toBe(true);
  });

  it('names the lagging row when a message is on the wire before its row says dispatched', () => {
    const figures = measureChaosSend([row('a', 'read'), row('b', 'queued')], [wire('a'), wire('b')]);
    // The totals differ by one (2 wire ids, 1 dispatched) but no message is on the wire twice.
    expect(figures).toMatchObject({ distinctWireIds: 2, dispatched: 1, underTwoIds: 0, unknownWireIds: 0 });
    expect(figures.onWireNotDispatched).toEqual({ queued: 1 });
    expect(figures.unsettledStates).toEqual({ queued: 1 });
    expect(isChaosSendClean(figures)).toBe(false);
  });

  it('finds an expired message that is on the wire even when the totals happen to agree', () => {
    const figures = measureChaosSend([row('a', 'expired'), row('b', 'read')], [wire('a')]);
    expect(figures).toMatchObject({ distinctWireIds: 1, dispatched: 1, dispatchedNotOnWire: 1 });
    expect(figures.onWireNotDispatched).toEqual({ expired: 1 });
    expect(isChaosSendClean(figures)).toBe(false);
  });

  it('finds one message on the wire under two ids and an id the lake does not know', () => {
    const figures = measureChaosSend(
      [row('a', 'read'), row('b', 'read')],
      [wire('a', 'same'), { ...wire('b', 'same') }, wire('x')]
    );
    expect(figures).toMatchObject({ underTwoIds: 1, unknownWireIds: 1 });
    expect(isChaosSendClean(figures)).toBe(false);
  });
});

describe('waitUntilSettled', () => {
  it('keeps waiting past the idle window while rows move, and gives up after a window without a move', async () => {
    let clockMs = 0;
    // Each read is 2 s later; rows move at 8 s and 16 s, each within the 10 s window of the previous move.
    const script: ChaosSendRow[][] = [
      ...Array.from({ length: 4 }, () => [row('a', 'queued'), row('b', 'queued')]),
      ...Array.from({ length: 4 }, () => [row('a', 'read'), row('b', 'queued')]),
      ...Array.from({ length: 20 }, () => [row('a', 'read'), row('b', 'sent')]),
    ];
    let reads = 0;
    const outcome = await waitUntilSettled({
      readRows: () => Promise.resolve(script[Math.min(reads++, script.length - 1)] ?? []),
      idleMs: 10_000,
      pollMs: 2_000,
      now: () => clockMs,
      sleep: (ms) => {
        clockMs += ms;
        return Promise.resolve();
      },
    });
    expect(outcome.isSettled).toBe(false);
    // Last move at 16 s, then 10 s without one: longer than a fixed 10 s limit would have allowed.
    expect(outcome.waitedMs).toBe(26_000);
    expect(outcome.rows.map((r) => r.state)).toEqual(['read', 'sent']);
  });

  it('returns as soon as every row is final', async () => {
    const rows = [row('a', 'read'), row('b', 'expired')];
    const outcome = await waitUntilSettled({ readRows: () => Promise.resolve(rows), idleMs: 1 });
    expect(outcome).toMatchObject({ isSettled: true });
  });
});
