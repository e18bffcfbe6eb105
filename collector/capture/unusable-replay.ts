import type { ReplaySummary } from './replay-capture.js';

/**
 * Says why a replay fed nothing to the pipeline: the capture held no lines, every line was malformed,
 * or no record carried an item (`data: null`, `messages: []`). Either way the user pointed at the wrong
 * file (or a truncated one), and a replay that reports "0 kept" and exits 0 hides that.
 *
 * @param summary - the counts of a finished replay (`lines` counts records and malformed lines).
 * @returns one sentence for the user, or null when at least one item was read.
 */
export function describeUnusableReplay(
  summary: Pick<ReplaySummary, 'lines' | 'malformedLines' | 'items' | 'recordsWithoutItems'>,
  path: string
): string | null {
  if (summary.lines === 0) return `the capture ${path} holds no lines: nothing was replayed`;
  if (summary.malformedLines === summary.lines) {
    return (
      `every one of the ${summary.lines} lines of ${path} is malformed (not a capture or trail record): ` +
      'nothing was replayed'
    );
  }
  if (summary.items === 0) {
    return (
      `no line of ${path} carries an item: ${summary.recordsWithoutItems} record(s) without any ` +
      `(data null or an empty batch), ${summary.malformedLines} malformed: nothing was replayed`
    );
  }
  return null;
}
