import { describe, expect, it } from 'vitest';
import { HistoryProgressMeter } from '../../../collector/history-progress.js';

describe('HistoryProgressMeter (issue #29 item 5)', () => {
  it('reports the rate since the first push and an ETA from WhatsApp’s progress, and restarts after 100 %', () => {
    let now = 0;
    const meter = new HistoryProgressMeter(() => now);
    expect(meter.record(1000, 10)).toEqual({ percent: 10, items: 1000, itemsPerSecond: 1_000_000, etaMs: 9 });
    now = 10_000;
    expect(meter.record(1000, 25)).toEqual({ percent: 25, items: 2000, itemsPerSecond: 200, etaMs: 30_000 });
    now = 40_000;
    expect(meter.record(500, 100)).toMatchObject({ percent: 100, items: 2500, etaMs: 0 });
    expect(meter.record(10, null)).toMatchObject({ items: 10, percent: null, etaMs: null });
  });
});
