import { shortenAtWord } from '../shorten-at-word.js';

/** The most characters (code points) a name shows as a chart's axis label or legend entry, `…` included. */
export const MAX_CHART_LABEL_CHARS = 30;

/**
 * Bidi embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069): in a label one of them turns the
 * text after it around (`U+202E` makes "Ana gpj.exe" read "Ana exe.jpg"), in SVG and ECharts alike.
 */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/gu;

/**
 * A name (group subject, member name) as a chart's axis label or legend shows it, in the report file and on the
 * dashboard (docs/engagement.md): bidi controls removed, on one line, at most {@link MAX_CHART_LABEL_CHARS}
 * characters, a longer name cut at a word and ended with `…`. The tables show the whole name.
 */
export function chartLabel(name: string): string {
  return shortenAtWord(name.replace(BIDI_CONTROL, ''), MAX_CHART_LABEL_CHARS);
}
