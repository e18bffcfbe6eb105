import { describe, expect, it } from 'vitest';
import { formatDemoSummary, type DemoSummary } from '../../../../cli/demo/demo-summary.js';

const summary = (overrides: Partial<DemoSummary>): DemoSummary => ({
  capture: 'capture.jsonl',
  read: 2,
  items: 2,
  kept: 2,
  distinctKept: 2,
  dropped: {},
  duplicatesRejected: 0,
  malformedLines: 0,
  recordsWithoutItems: 0,
  blankLines: 0,
  outbox: { pending: 0, started: 2, dead: 0 },
  quarantined: 0,
  workflows: { completed: 2, failed: 0, unfinished: 0 },
  lakeRows: 2,
  webUi: null,
  ok: true,
  timeoutMs: 180_000,
  timedOut: false,
  ...overrides,
});

describe('formatDemoSummary', () => {
  it('claims every kept event is in the lake only when none was quarantined', () => {
    expect(formatDemoSummary(summary({}))).toContain('OK: the lake holds each distinct kept event exactly once\n');
  });

  it('names the events quarantined as dead instead of claiming they reached the lake', () => {
    const text = formatDemoSummary(
      summary({ outbox: { pending: 0, started: 1, dead: 1 }, quarantined: 1, lakeRows: 1 })
    );
    expect(text).toContain('OK: the lake holds each distinct kept event but the 1 quarantined as dead in the outbox');
    expect(text).not.toContain('each distinct kept event exactly once');
  });

  it('states both numbers on a mismatch', () => {
    const text = formatDemoSummary(summary({ quarantined: 1, lakeRows: 0, ok: false }));
    expect(text).toContain('MISMATCH: lake rows 0 ≠ 1 deliverable distinct kept events');
  });

  it('says the wait ran out, not that data was lost, when workflows were still running at the deadline', () => {
    const text = formatDemoSummary(
      summary({
        distinctKept: 37,
        lakeRows: 5,
        outbox: { pending: 0, started: 37, dead: 0 },
        workflows: { completed: 5, failed: 0, unfinished: 32 },
        ok: false,
        timeoutMs: 1000,
        timedOut: true,
      })
    );
    expect(text).toContain(
      'TIMEOUT: the wait for deliveries ran out after 1000 ms with 5 of 37 deliverable events in the lake ' +
        '(0 still pending in the outbox, 32 workflows unfinished); run again with a larger --timeout-ms'
    );
    expect(text).not.toContain('MISMATCH');
  });
});
