import { describe, expect, it } from 'vitest';
import { ProgressMeter } from '../../../common/progress-meter.js';

describe('ProgressMeter (ADR 0017: long operations show a rate and an ETA)', () => {
  it('reports the share done, the rate since the start and the time left at that pace', () => {
    let nowMs = 1_000_000;
    const meter = new ProgressMeter('projections', 10_000, () => nowMs);
    nowMs += 2_000;
    expect(meter.advance(2_500)).toEqual({
      phase: 'projections',
      done: 2_500,
      total: 10_000,
      percent: 25,
      perSecond: 1_250,
      etaSeconds: 6,
    });
    nowMs += 6_000;
    expect(meter.advance(7_500)).toMatchObject({ done: 10_000, percent: 100, perSecond: 1_250, etaSeconds: 0 });
  });

  it('has no ETA before anything is done, says 100 % for nothing to do, and grows a total that was low', () => {
    let nowMs = 0;
    expect(new ProgressMeter('x', 5, () => nowMs).advance(0)).toMatchObject({ percent: 0, etaSeconds: null });
    expect(new ProgressMeter('x', 0, () => nowMs).advance(0)).toMatchObject({ percent: 100, total: 0 });
    const meter = new ProgressMeter('x', 10, () => nowMs);
    nowMs = 1_000;
    // Rows arrived after the count: the total follows instead of reporting 120 %.
    expect(meter.advance(12)).toMatchObject({ done: 12, total: 12, percent: 100, etaSeconds: 0 });
  });
});
