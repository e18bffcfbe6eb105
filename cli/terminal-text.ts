// The bidi embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069).
const BIDI_CONTROLS = '\u202a-\u202e\u2066-\u2069';
/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts clear-screen, cursor and OSC 52
 * clipboard-write sequences; BEL ends OSC), DEL, C1 controls (U+009B is a one-character CSI) and the bidirectional
 * overrides and isolates that reorder what is shown (Trojan Source).
 */
const CONTROL = new RegExp(`[\u0000-\u001f\u007f-\u009f${BIDI_CONTROLS}]`, 'gu');
const BIDI_CONTROL = new RegExp(`[${BIDI_CONTROLS}]`, 'gu');

/** `text` without its bidi controls: where no escape can be shown (a chart's label), they are dropped. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROL, '');
}

/** `\uXXXX`: visible, and inside a JSON string the same character, so `--json` output stays exact. */
function visibleEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A remote party's string (group subject, push name, member id, a webhook's answer) made safe to print: every
 * control character is shown as its `\uXXXX` escape, so the operator sees it is there and the terminal never
 * runs it. Tabs and line breaks are escaped too: a field must not forge a column or a line of its own.
 */
export function toTerminalText(text: string): string {
  return text.replace(CONTROL, visibleEscape);
}

/**
 * A whole output line made safe to print: as {@link toTerminalText}, but the tabs and line breaks our own
 * formatting uses are kept. JSON output passes unchanged except that raw DEL, C1 and bidi characters (which
 * `JSON.stringify` leaves as they are) become their JSON escapes.
 */
export function toTerminalLine(line: string): string {
  return line.replace(CONTROL, (character) =>
    character === '\t' || character === '\n' ? character : visibleEscape(character)
  );
}
