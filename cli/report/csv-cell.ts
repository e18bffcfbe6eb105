/**
 * Characters a spreadsheet reads as the start of a formula (OWASP "CSV Injection"): `=`, `+`, `-`, `@`, tab and
 * carriage return. A group admin controls a group's subject, so every cell is text from a stranger.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180) that a spreadsheet shows as text, never runs: a string starting with a formula character
 * gets a leading `'` and is quoted, as OWASP recommends; a cell holding a comma, quote or line break is quoted with
 * quotes doubled. Numbers and booleans are written as they are (a negative count is a number, not a formula);
 * anything else is an empty cell.
 */
export function toCsvCell(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return '';
  if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
