/** Which of the two numbers of an exported date before (or after) the year is the day. */
export type DateOrder = 'day-first' | 'month-first';

export const DATE_ORDERS: readonly DateOrder[] = ['day-first', 'month-first'];

/** A message header's date and time as written, before any `Date` is made (a `Date` rolls `31/02` over). */
export interface WrittenTimestamp {
  /** The day and the month in the order written, not yet told apart. */
  dayOrMonth: readonly [number, number];
  year: number;
  /** `HH:MM:SS` on a 24-hour clock, or null when no such time exists (`25:00`, `9:0`, `13:00 PM`). */
  time: string | null;
}

// The date and time that open a header, as `whatsapp-chat-parser` 4 matches them (it does not export its pattern):
// the parser builds a Date from these numbers, which rolls an impossible date or time over instead of refusing it.
const HEADER_TIMESTAMP =
  /^[\u200E\u200F]*\[?(\d{1,4}[-/.]\s?\d{1,4}[-/.]\s?\d{1,4})[,.]?\s\D*?(\d{1,2}[.:]\d{1,2}(?:[.:]\d{1,2})?)(?:\s([ap]\.?\s?m\.?))?/i;

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * The three numbers of a written date as the parser orders them: the longest is the year, last (`5/27/25`) or
 * first (`2025-05-27`); a two-digit year is of the 2000s, as the parser reads it.
 */
function splitDate(date: string): { dayOrMonth: [number, number]; year: number } {
  const [a = '', b = '', c = ''] = date.split(/[-/.] ?/);
  const longest = Math.max(a.length, b.length, c.length);
  const [first, second, year] = c.length === longest ? [a, b, c] : b.length === longest ? [a, c, b] : [b, c, a];
  return { dayOrMonth: [Number(first), Number(second)], year: Number(year.padStart(4, '2000')) };
}

/** `HH:MM:SS` of a written time, or null when it names no time of a day (minutes and seconds take two digits). */
function timeOf(written: string, meridiem: string | undefined): string | null {
  const [hourText = '', minuteText = '', secondText] = written.split(/[:.]/);
  if (minuteText.length !== 2 || (secondText !== undefined && secondText.length !== 2)) return null;
  const minute = Number(minuteText);
  const second = Number(secondText ?? '0');
  let hour = Number(hourText);
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem.replace(/[^apm]/gi, '').toUpperCase() === 'PM' ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) return null;
  return `${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/** The date and time a header line opens with, as written; null when the line opens with none. */
export function readWrittenTimestamp(line: string): WrittenTimestamp | null {
  const match = HEADER_TIMESTAMP.exec(line);
  if (match === null) return null;
  const [, date = '', time = '', meridiem] = match;
  return { ...splitDate(date), time: timeOf(time, meridiem) };
}

/** `YYYY-MM-DD` of a written date read in `order`, or null when that date does not exist (`31/02`, month 13). */
export function calendarDateOf(written: WrittenTimestamp, order: DateOrder): string | null {
  const [first, second] = written.dayOrMonth;
  const [day, month] = order === 'day-first' ? [first, second] : [second, first];
  if (month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(written.year, month, 0)).getUTCDate();
  return day > daysInMonth ? null : `${pad(written.year, 4)}-${pad(month)}-${pad(day)}`;
}

/** The orders a written date exists in: none (`13/45/25`), one (`5/27/25`) or both (`5/6/25`). */
export function ordersValidFor(written: WrittenTimestamp): DateOrder[] {
  return DATE_ORDERS.filter((order) => calendarDateOf(written, order) !== null);
}
