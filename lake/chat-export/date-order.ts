import { parseString } from 'whatsapp-chat-parser';
import { ordersValidFor, type DateOrder, type WrittenTimestamp } from './written-timestamp.js';

/** How the day/month order of an export was decided (ADR 0023). */
export interface DateOrderDecision {
  order: DateOrder;
  /**
   * `option`: `--date-order`; `dates`: the lines whose date exists in one order only; `assumed`: every date exists
   * both ways, so the order is the parser's guess from how the dates follow each other (the output says so).
   */
  basis: 'option' | 'dates' | 'assumed';
  /** Header lines whose date exists only day-first, and only month-first. */
  dayFirstOnly: number;
  monthFirstOnly: number;
}

/**
 * Thrown when as many header lines exist only day-first as only month-first: the file cannot tell its order,
 * and `--date-order` must. Nothing is imported.
 */
export class DateOrderConflictError extends Error {
  override readonly name = 'DateOrderConflictError';
  constructor(readonly linesEachWay: number) {
    super(
      `${String(linesEachWay)} dates exist only day-first and ${String(linesEachWay)} only month-first: ` +
        'give --date-order day-first or --date-order month-first'
    );
  }
}

/**
 * Thrown when `--date-order` makes a header date impossible that exists in the other order (`13/07/2025` read
 * month-first): the file contradicts the option, and the dates that exist both ways (`01/07/2025`) would be stored
 * on the wrong day under a key that a later, correct import does not replace. Nothing is imported (ADR 0023).
 */
export class DateOrderContradictionError extends Error {
  override readonly name = 'DateOrderContradictionError';
  constructor(
    readonly requested: DateOrder,
    readonly contradicting: number,
    readonly firstLine: number,
    /** The order every readable date exists in, or null when neither order fits them all. */
    readonly fitting: DateOrder | null
  ) {
    const other: DateOrder = requested === 'day-first' ? 'month-first' : 'day-first';
    super(
      `--date-order ${requested} contradicts the file: ${String(contradicting)} of its dates exist only ${other} ` +
        `(the first on line ${String(firstLine)}), so nothing was imported; ` +
        (fitting === null
          ? `neither order fits every date: import without --date-order to read the file in the order most of its ` +
            'dates fit and list the others as unreadable lines'
          : `its dates fit ${fitting}: import again with --date-order ${fitting}, or without --date-order`)
    );
  }
}

/** A header line, its 1-based number in the file, and its written timestamp. */
export interface HeaderLine {
  text: string;
  line: number;
  written: WrittenTimestamp;
}

/**
 * The day/month order of an export (ADR 0023): `requested` when given; else the order in which more of its dates
 * exist (`5/27/25` exists only month-first; `13/45/25` in neither, and is ignored, so one garbled line cannot
 * turn the file around); else, when every date exists both ways, `whatsapp-chat-parser`'s guess from how those
 * dates follow each other.
 *
 * @throws DateOrderConflictError when as many dates exist only one way as only the other, and none was requested;
 *   DateOrderContradictionError when one was requested and any date exists only in the other order.
 */
export function decideDateOrder(headers: readonly HeaderLine[], requested?: DateOrder): DateOrderDecision {
  let dayFirstOnly = 0;
  let monthFirstOnly = 0;
  const both: string[] = [];
  let firstOnlyOtherThanRequested: number | null = null;
  for (const header of headers) {
    const orders = ordersValidFor(header.written);
    if (orders.length === 2) both.push(header.text);
    else if (orders[0] === 'day-first') dayFirstOnly += 1;
    else if (orders[0] === 'month-first') monthFirstOnly += 1;
    if (orders.length === 1 && orders[0] !== requested && requested !== undefined)
      firstOnlyOtherThanRequested ??= header.line;
  }
  const counts = { dayFirstOnly, monthFirstOnly };
  if (requested !== undefined && firstOnlyOtherThanRequested !== null) {
    const [contradicting, agreeing] =
      requested === 'day-first' ? [monthFirstOnly, dayFirstOnly] : [dayFirstOnly, monthFirstOnly];
    const other: DateOrder = requested === 'day-first' ? 'month-first' : 'day-first';
    throw new DateOrderContradictionError(
      requested,
      contradicting,
      firstOnlyOtherThanRequested,
      agreeing === 0 ? other : null
    );
  }
  if (requested !== undefined) return { order: requested, basis: 'option', ...counts };
  if (dayFirstOnly !== monthFirstOnly)
    return { order: dayFirstOnly > monthFirstOnly ? 'day-first' : 'month-first', basis: 'dates', ...counts };
  if (dayFirstOnly > 0) throw new DateOrderConflictError(dayFirstOnly);
  return { order: parserGuess(both), basis: 'assumed', ...counts };
}

/** The parser's own guess for header lines whose dates all exist both ways (day-first when nothing tells). */
function parserGuess(headerLines: readonly string[]): DateOrder {
  const text = headerLines.join('\n');
  const guessed = parseString(text);
  const dayFirst = parseString(text, { daysFirst: true });
  const isDayFirst = guessed.every((message, index) => message.date.getTime() === dayFirst[index]?.date.getTime());
  return isDayFirst ? 'day-first' : 'month-first';
}
