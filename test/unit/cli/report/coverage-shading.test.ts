import { describe, expect, it } from 'vitest';
import {
  NOT_OBSERVED_FILL,
  PARTLY_OBSERVED_FILL,
  coverageMarkAreas,
  describeCoverage,
} from '../../../../cli/report/coverage-shading.js';
import type { DayCoverage } from '../../../../lake/index.js';

const days = (levels: DayCoverage[]) => ({
  isRecorded: true,
  days: levels.map((coverage, i) => ({ day: `2026-01-0${String(i + 1)}`, coverage })),
});

describe('coverage shading of the report', () => {
  it('shades each run of not observed or partly observed days edge to edge, and no fully observed day', () => {
    expect(coverageMarkAreas(days(['none', 'none', 'full', 'partly', 'none', 'full']))).toEqual([
      [{ xAxis: '2026-01-01', itemStyle: { color: NOT_OBSERVED_FILL } }, { xAxis: '2026-01-02' }],
      [{ xAxis: '2026-01-04', itemStyle: { color: PARTLY_OBSERVED_FILL } }, { xAxis: '2026-01-04' }],
      [{ xAxis: '2026-01-05', itemStyle: { color: NOT_OBSERVED_FILL } }, { xAxis: '2026-01-05' }],
    ]);
    expect(coverageMarkAreas(days(['full', 'full']))).toEqual([]);
    expect(coverageMarkAreas({ isRecorded: false, days: [] })).toEqual([]);
  });

  it('says how to read the shading, and that empty days may be gaps when the lake records no coverage', () => {
    expect(describeCoverage(days(['none', 'partly', 'partly']))).toContain(
      'dark: not observed, 1 day; light: partly observed, 2 days'
    );
    expect(describeCoverage(days(['full']))).toBe('Every day of the range was fully observed by the collectors.');
    expect(describeCoverage({ isRecorded: false, days: [] })).toMatch(/^No coverage recorded/);
  });
});
