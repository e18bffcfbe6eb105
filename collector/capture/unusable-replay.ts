import type { ReplaySummary } from './replay-capture.js';

/**
 * Says why a replay fed nothing to the pipeline: the capture held no lines, or every line was
 * malformed. Either way the user pointed at the wrong file (or a truncated one), and a replay that
 * reports "0 kept" and exits 0 hides that. Source: issue #12 item 9.
 *
 * @param summary - the counts of a finished replay (`lines` counts records and malformed lines).
 * @returns one sentence for the user, or null when at least one record was read.
 */
export function describeUnusableReplay(
  summary: Pick<ReplaySummary, 'lines' | 'malformedLines'>,
  path: string
): string | null {
  if (summary.lines === 0) return `the capture ${path} holds no lines: nothing was replayed`;
  if (summary.malformedLines === summary.lines) {
    return (
      `every one of the ${summary.lines} lines of ${path} is malformed (not a capture or trail record): ` +
      'nothing was replayed'
    );
  }
  return null;
}
