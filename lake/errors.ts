/** Thrown by `runMigrations` when a migration fails or the database cannot be reached. */
export class MigrationFailedError extends Error {
  override readonly name = 'MigrationFailedError';
  constructor(cause: unknown) {
    super('database migration failed', { cause });
  }
}

/** Thrown by the repositories when PostgreSQL cannot be reached or refuses connections (maps to HTTP 503). */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  constructor(cause: unknown) {
    super('database unavailable', { cause });
  }
}

/**
 * Thrown by the repositories when PostgreSQL is up but every pooled connection stayed busy for the pool's
 * connection timeout (`CONNECTION_TIMEOUT_MS`): backpressure, mapped to HTTP 503 `WA_ERR_DATABASE_BUSY` with
 * `Retry-After` so the senders retry later (architecture.md §8).
 */
export class DatabaseBusyError extends Error {
  override readonly name = 'DatabaseBusyError';
  constructor(cause: unknown) {
    super('database busy', { cause });
  }
}

/**
 * Thrown by `rebuildProjections` when the rebuild cannot complete; the transaction was rolled back and
 * the previous projections are untouched. `cause` holds the pg error.
 */
export class RebuildFailedError extends Error {
  override readonly name = 'RebuildFailedError';
  constructor(
    readonly eventsApplied: number,
    cause: unknown
  ) {
    super(`projection rebuild failed after ${eventsApplied} events; previous projections kept`, { cause });
  }
}

/**
 * Thrown by `checkTimeZone` for a zone PostgreSQL accepts that is not an IANA name, such as `+05:00` or `UTC+5`:
 * PostgreSQL reads such offsets with the POSIX sign, so `+05:00` would bucket days at UTC−5, while IANA names
 * (`America/Sao_Paulo`, `UTC`) are unambiguous (ADR 0013).
 */
export class UnnamedTimeZoneError extends Error {
  override readonly name = 'UnnamedTimeZoneError';
  constructor(readonly timeZone: string) {
    super(
      `time zone "${timeZone}" is not an IANA time zone name: give one such as America/Sao_Paulo or UTC ` +
        '(PostgreSQL reads a UTC offset like +05:00 with the POSIX sign, as UTC−5)'
    );
  }
}

/**
 * Thrown by `assertGroupInLake` (the report, the dashboard, `wa-lake coverage`) for a group the lake has never seen:
 * a report of zeros for a mistyped JID would look like a quiet group.
 */
export class UnknownReportGroupError extends Error {
  override readonly name = 'UnknownReportGroupError';
  constructor(readonly groupJid: string) {
    super(
      `group ${groupJid} is not in the lake (no group row, no message, no observed period); check the JID ` +
        'against the groups `wa-lake coverage` lists when run without --group'
    );
  }
}

/**
 * Thrown by `readEngagementReport` when the report's first day falls after its last, typically because only one
 * end was given and the other defaulted to the lake's first or last day with activity (`report --to 1999-01-01`
 * would otherwise print zero totals beside a filled lurker list).
 */
export class InvertedReportRangeError extends Error {
  override readonly name = 'InvertedReportRangeError';
  constructor(
    readonly from: string,
    readonly to: string,
    readonly defaulted: 'from' | 'to' | null
  ) {
    super(describeInvertedRange(from, to, defaulted, (end) => `--${end}`));
  }

  /** The message with each end named as `nameOf` names it: `--from` for the CLI, `from` on the dashboard. */
  describe(nameOf: (end: 'from' | 'to') => string): string {
    return describeInvertedRange(this.from, this.to, this.defaulted, nameOf);
  }
}

function describeInvertedRange(
  from: string,
  to: string,
  defaulted: 'from' | 'to' | null,
  nameOf: (end: 'from' | 'to') => string
): string {
  const why =
    defaulted === 'from'
      ? ` (${nameOf('from')} defaulted to the first day with activity; the lake has none up to ${to})`
      : defaulted === 'to'
        ? ` (${nameOf('to')} defaulted to the last day with activity; the lake has none from ${from} on)`
        : '';
  return `the report would start on ${from}, after its last day ${to}${why}; the first day must come first`;
}

/** Most days one engagement report spans (ten years and a leap day or three): its daily series stay small. */
export const MAX_REPORT_DAYS = 3_660;

/**
 * Thrown by `readEngagementReport` when the range spans more than {@link MAX_REPORT_DAYS} days (a
 * `--from 1900 --to 2100` report wrote 73,000 daily rows, 22 MB of HTML, without a word).
 */
export class ReportRangeTooLongError extends Error {
  override readonly name = 'ReportRangeTooLongError';
  constructor(from: string, to: string, days: number) {
    super(
      `the report from ${from} to ${to} would span ${days} days, more than the ${MAX_REPORT_DAYS} one report covers; ` +
        'choose a first and last day closer together (--from and --to; from and to on the dashboard), or several reports'
    );
  }
}
