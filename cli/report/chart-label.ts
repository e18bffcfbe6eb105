import { shortenAtWord } from '../shorten-at-word.js';
import { withoutBidiControls } from '../terminal-text.js';

/** The most characters (code points) a name shows as a chart's axis label or legend entry, `…` included. */
export const MAX_CHART_LABEL_CHARS = 30;

/**
 * A name (group subject, member name) as a chart's axis label or legend shows it, in the report file and on the
 * dashboard (docs/engagement.md): bidi controls removed (one would turn the text after it around: `U+202E` makes
 * "Ana gpj.exe" read "Ana exe.jpg", in SVG and ECharts alike), on one line, at most {@link MAX_CHART_LABEL_CHARS}
 * characters, a longer name cut at a word and ended with `…`. The tables show the whole name.
 */
export function chartLabel(name: string): string {
  return shortenAtWord(withoutBidiControls(name), MAX_CHART_LABEL_CHARS);
}
