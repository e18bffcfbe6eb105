/** The first day a report may name: WhatsApp began in 2009, and PostgreSQL has no year 0. */
const FIRST_REPORT_DAY = '2009-01-01';
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What `wa-lake report --from/--to` and the dashboard's `from`/`to` say of a day they refuse. */
export const REPORT_DAY_RULE = `YYYY-MM-DD, from ${FIRST_REPORT_DAY} on`;

/**
 * Whether `value` is a day the report reads (architecture.md §13): `YYYY-MM-DD` naming a day of the calendar
 * (`2025-02-30` and `2025-13-45` do not) from 2009 on. The one check of `wa-lake report` and the dashboard, so
 * neither hands PostgreSQL a day it refuses with its own words.
 */
export function isReportDay(value: string): boolean {
  if (!DAY.test(value) || value < FIRST_REPORT_DAY) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}
