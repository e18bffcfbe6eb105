import { describe, expect, it } from 'vitest';
import { HistoryProgressMeter } from '../../../collector/history-progress.js';

describe('HistoryProgressMeter (ADR 0016)', () => {
  it('reports the rate since the first push and an ETA from WhatsApp’s progress, and restarts after 100 %', () => {
    let now = 0;
    const meter = new HistoryProgressMeter(() => now);
    // One push spans no time: no rate and no ETA yet, rather than a rate of items per millisecond.
    expect(meter.record(1000, 10)).toEqual({ percent: 10, items: 1000, itemsPerSecond: null, etaMs: null });
    now = 10_000;
    expect(meter.record(1000, 25)).toEqual({ percent: 25, items: 2000, itemsPerSecond: 200, etaMs: 30_000 });
    now = 40_000;
    expect(meter.record(500, 100)).toMatchObject({ percent: 100, items: 2500, etaMs: 0 });
    expect(meter.record(10, null)).toMatchObject({ items: 10, percent: null, etaMs: null });
  });
});

describe('HistoryProgressMeter.status', () => {
  it('keeps the last import for wa-lake status: sync type by name, pushes, times, and done at 100 %', () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const meter = new HistoryProgressMeter(() => now);
    expect(meter.status()).toBeNull();
    meter.record(1000, 40, 0);
    now += 4_000;
    meter.record(1000, 80, 0);
    expect(meter.status()).toEqual({
      percent: 80,
      items: 2000,
      itemsPerSecond: 500,
      etaMs: 1_000,
      syncType: 'INITIAL_BOOTSTRAP',
      pushes: 2,
      startedAt: '2026-12-01T10:00:00.000Z',
      updatedAt: '2026-12-01T10:00:04.000Z',
      isDone: false,
    });
    now += 1_000;
    meter.record(500, 100, 0);
    expect(meter.status()).toMatchObject({ items: 2500, pushes: 3, isDone: true, etaMs: 0 });
    meter.record(50, null, 6);
    expect(meter.status()).toMatchObject({ items: 50, pushes: 1, syncType: 'ON_DEMAND', isDone: false });
  });
});
