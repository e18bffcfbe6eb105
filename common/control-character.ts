/** A C0 control character (U+0000–U+001F: tab, newline, escape, NUL, …) or DEL. */
// eslint-disable-next-line no-control-regex -- matching control characters is this module's job
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/u;

/** The first control character of a text: its code point as `U+0009` and its place, counted in characters from 1. */
export interface FoundControlCharacter {
  codePoint: string;
  position: number;
}

/**
 * The first C0 control character or DEL of `text`, or null: the one rule for text a user sends that must be one
 * line of printable text (member ids and names, the dashboard's filters; PostgreSQL refuses a NUL in text).
 */
export function findControlCharacter(text: string): FoundControlCharacter | null {
  const found = CONTROL_CHARACTER.exec(text);
  if (found === null) return null;
  return {
    codePoint: `U+${(found[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`,
    position: [...text.slice(0, found.index)].length + 1,
  };
}
