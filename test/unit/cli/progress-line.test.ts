import { describe, expect, it } from 'vitest';
import { createProgressPrinter, formatProgressLine } from '../../../cli/progress-line.js';
import type { ProgressReport } from '../../../common/progress-meter.js';

const report = (done: number, etaSeconds: number | null, phase = 'projections'): ProgressReport => ({
  phase,
  done,
  total: 120_000,
  percent: Math.floor((done / 120_000) * 100),
  perSecond: 8_000,
  etaSeconds,
});

describe('progress lines of rebuild and retention (ADR 0017)', () => {
  it('say how far, how fast and how long still, for people', () => {
    expect(formatProgressLine('rebuild', 'events', report(45_000, 9))).toBe(
      'rebuild: projections 45,000 of 120,000 events (37 %), 8,000 events/s, about 9 s left'
    );
    expect(formatProgressLine('rebuild', 'events', report(1_000, 900))).toContain('about 15 min left');
    expect(formatProgressLine('rebuild', 'events', report(120_000, 0))).toContain('(100 %), 8,000 events/s, done');
  });

  it('print the first report of each phase, then at most one every interval, and the last', () => {
    const lines: string[] = [];
    let nowMs = 0;
    const print = createProgressPrinter('rebuild', 'events', { write: (line) => lines.push(line), now: () => nowMs });
    print(report(500, 100));
    nowMs = 1_000;
    print(report(1_000, 100));
    nowMs = 2_500;
    print(report(1_500, 100));
    print(report(120_000, 0));
    print(report(10, 5, 'messages'));
    expect(lines.map((line) => line.split(' ').slice(1, 3).join(' '))).toEqual([
      'projections 500',
      'projections 1,500',
      'projections 120,000',
      'messages 10',
    ]);
  });
});
