import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldUnobservedPeriods } from '../../../../lake/projections/unobserved-periods.js';

const fact = (atMs: number, isPresent: boolean, isTimed = true, eventId = `e-${atMs}`) => ({
  atMs,
  eventId,
  isPresent,
  role: null,
  isTimed,
});

describe('foldUnobservedPeriods (ADR 0007)', () => {
  it('opens a period at the removal and closes it at the re-add', () => {
    expect(foldUnobservedPeriods([fact(1, true), fact(5, false)])).toEqual([{ startedAtMs: 5, endedAtMs: null }]);
    expect(foldUnobservedPeriods([fact(9, true), fact(5, false), fact(1, true), fact(12, false)])).toEqual([
      { startedAtMs: 5, endedAtMs: 9 },
      { startedAtMs: 12, endedAtMs: null },
    ]);
  });

  it('lets no untimed hint override a timed fact (ADR 0007)', () => {
    expect(foldUnobservedPeriods([fact(5, false), fact(50, true, false)])).toEqual([
      { startedAtMs: 5, endedAtMs: null },
    ]);
  });

  it('is a function of the set of facts', () => {
    const entry = fc.record({
      atMs: fc.integer({ min: 0, max: 20 }),
      eventId: fc.uuid(),
      isPresent: fc.boolean(),
      role: fc.constant(null),
      isTimed: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.eventId, maxLength: 20 }), (entries) => {
        expect(foldUnobservedPeriods([...entries].reverse())).toEqual(foldUnobservedPeriods(entries));
      })
    );
  });
});
