import type { ReportCoverage } from '../../lake/index.js';

/** Fill of a span of days no collector observed, and of days observed only in part (docs/engagement.md "Coverage"). */
export const NOT_OBSERVED_FILL = 'rgba(90, 90, 90, 0.22)';
export const PARTLY_OBSERVED_FILL = 'rgba(90, 90, 90, 0.09)';

/** One ECharts `markArea` item: from the first day's band to the last day's band of a category axis, filled. */
type MarkAreaItem = [{ xAxis: string; itemStyle: { color: string } }, { xAxis: string }];

/**
 * The runs of consecutive days a report's coverage marks as not observed or partly observed, as ECharts `markArea`
 * items for a category axis of days (a category band is shaded whole, so a run shades its days edge to edge).
 * Fully observed days, and a lake without coverage records, shade nothing.
 */
export function coverageMarkAreas(coverage: ReportCoverage): MarkAreaItem[] {
  const runs: Array<{ coverage: string; first: string; last: string }> = [];
  for (const { day, coverage: level } of coverage.days) {
    const last = runs.at(-1);
    if (last?.coverage === level) last.last = day;
    else runs.push({ coverage: level, first: day, last: day });
  }
  return runs
    .filter((run) => run.coverage !== 'full')
    .map((run) => [
      { xAxis: run.first, itemStyle: { color: run.coverage === 'none' ? NOT_OBSERVED_FILL : PARTLY_OBSERVED_FILL } },
      { xAxis: run.last },
    ]);
}

/**
 * The sentence under the report's title that says how to read the shading, with the count of days of each kind;
 * without coverage records, that empty days may be gaps.
 */
export function describeCoverage(coverage: ReportCoverage): string {
  if (!coverage.isRecorded)
    return 'No coverage recorded (no collector session events in the lake): a day without messages may be a gap.';
  const count = (level: string): number => coverage.days.filter((day) => day.coverage === level).length;
  const [none, partly] = [count('none'), count('partly')];
  if (none === 0 && partly === 0) return 'Every day of the range was fully observed by the collectors.';
  return (
    `Shaded days were not fully observed by the collectors (dark: not observed, ${String(none)} ${none === 1 ? 'day' : 'days'}; ` +
    `light: partly observed, ${String(partly)} ${partly === 1 ? 'day' : 'days'}): their counts are a lower bound, ` +
    'and a zero there means unknown, not quiet.'
  );
}
