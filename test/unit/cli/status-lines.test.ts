import { describe, expect, it } from 'vitest';
import { describeHistoryImport } from '../../../cli/commands/status.js';

const running = {
  percent: 63,
  items: 12_270,
  itemsPerSecond: 410,
  etaMs: 95_000,
  syncType: 'INITIAL_BOOTSTRAP',
  pushes: 14,
  startedAt: '2026-11-29T07:02:11.000Z',
  updatedAt: '2026-11-29T07:02:41.000Z',
  isDone: false,
  updatedAgeMs: 3_000,
};

describe('the history line of wa-lake status (ADR 0016)', () => {
  it('says a running import with percentage, events kept, rate and ETA; a finished one with its totals', () => {
    expect(describeHistoryImport(running)).toBe(
      'history      : INITIAL_BOOTSTRAP import running, 63 % per WhatsApp, 12,270 events kept in 14 pushes at 410/s, ETA 95 s (last push 3 s ago)'
    );
    expect(describeHistoryImport({ ...running, percent: null, etaMs: null, syncType: null })).toContain(
      'import running, no percentage from WhatsApp, 12,270 events kept in 14 pushes at 410/s, ETA unknown'
    );
    expect(describeHistoryImport({ ...running, percent: 100, etaMs: 0, isDone: true })).toBe(
      'history      : INITIAL_BOOTSTRAP import done at 2026-11-29T07:02:41.000Z: 12,270 events kept in 14 pushes at 410/s'
    );
    expect(
      describeHistoryImport({ ...running, items: 50, pushes: 1, itemsPerSecond: null, percent: 100, isDone: true })
    ).toBe('history      : INITIAL_BOOTSTRAP import done at 2026-11-29T07:02:41.000Z: 50 events kept in 1 push');
    expect(describeHistoryImport(null)).toBe('history      : no history import since the collector started');
  });
});
