const wordSegmenter = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * `text` on one line, at most `maxChars` characters (code points): whitespace runs become one space, and a
 * longer text is cut at the end of its last whole word that fits and gets `…` (`dlq list`
 * cut excerpts mid-word). A first word longer than `maxChars` is cut inside it: there is no earlier boundary.
 */
export function shortenAtWord(text: string, maxChars: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if ([...oneLine].length <= maxChars) return oneLine;
  let end = 0;
  for (const { index, segment, isWordLike } of wordSegmenter.segment(oneLine)) {
    const segmentEnd = index + segment.length;
    if ([...oneLine.slice(0, segmentEnd)].length > maxChars - 1) break;
    if (isWordLike) end = segmentEnd;
  }
  const cut = end > 0 ? oneLine.slice(0, end) : [...oneLine].slice(0, maxChars - 1).join('');
  return `${cut.trimEnd()}…`;
}
