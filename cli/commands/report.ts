import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { isReportDay, REPORT_DAY_RULE } from '../report/report-day.js';
import { isWellFormedGroupJid } from '../../common/whatsapp-jid.js';
import { KeptEngagementReports, type EngagementReport } from '../../lake/index.js';
import { toFileAccessError } from '../file-access-error.js';
import { currentProtectedFolders } from '../local-stack/protected-folders.js';
import { renderReportHtml } from '../report/render-html.js';
import { checkReportOutput } from '../report/report-output-guard.js';
import { writeReportCsv } from '../report/write-csv.js';
import { withLakePool } from './database.js';
import { engagementZoneWarning } from './engagement-zone-warning.js';
import { integerInRange, outputPath } from './option-parsers.js';
import { printLine } from './shared.js';

interface ReportOptions {
  group?: string;
  from?: string;
  to?: string;
  html?: string;
  json?: boolean;
  csv?: string;
  force?: boolean;
  lurkerDays: number;
  top: number;
  maxAge: number;
}

/**
 * A calendar day as YYYY-MM-DD. `Date.parse` rolls 2025-02-30 over to March 2 instead of failing, and
 * PostgreSQL would refuse it with a raw "date/time field value out of range": the day must read back
 * unchanged.
 * @throws InvalidArgumentError (commander prints it and exits 1).
 */
function parseDay(value: string): string {
  if (!isReportDay(value)) throw new InvalidArgumentError(`expected a date as ${REPORT_DAY_RULE}`);
  return value;
}

/**
 * A group JID, by the send path's rule (`isWellFormedGroupJid`): anything else stops the command before it
 * reads the lake, never an empty report with exit 0.
 * @throws InvalidArgumentError (commander prints it and exits 1).
 */
function parseGroupJid(value: string): string {
  if (!isWellFormedGroupJid(value)) throw new InvalidArgumentError('expected a group JID such as 120363…@g.us');
  return value;
}

/** The longest `--lurker-days`: a century of silence (PostgreSQL's integer would overflow far above it). */
const MAX_LURKER_DAYS = 36_500;
/** The most `--top` members a report lists. */
const MAX_TOP_MEMBERS = 10_000;
/** The oldest kept report `--max-age` accepts: a day, as `DASHBOARD_REPORT_MAX_AGE_SECONDS`. */
const MAX_REPORT_AGE_SECONDS = 86_400;

/** Writes the report where the options say. @returns the line to print (empty for `--json`). */
export async function writeReport(
  report: EngagementReport,
  options: Pick<ReportOptions, 'html' | 'json' | 'csv'>
): Promise<string> {
  if (options.html !== undefined) {
    const path = resolve(options.html);
    await writeFile(path, renderReportHtml(report, new Date()), 'utf8').catch((err: unknown) => {
      throw toFileAccessError(err, 'write the report to', path);
    });
    return `report written to ${path}`;
  }
  if (options.csv !== undefined) {
    const paths = await writeReportCsv(report, resolve(options.csv));
    return `${String(paths.length)} CSV files written to ${resolve(options.csv)}`;
  }
  return JSON.stringify(report);
}

/**
 * Registers `wa-lake report [--group JID] [--from DATE --to DATE] (--html FILE | --json | --csv DIR) [--force]`
 * (architecture.md §13): engagement of the lake as a self-contained HTML page with charts, JSON
 * on stdout, or one CSV file per dataset. Dates are local days in the lake's engagement time zone.
 */
export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('engagement report: messages, active members, top members, joins/leaves, retention, lurkers')
    .option('--group <jid>', 'only this group', parseGroupJid)
    .option('--from <date>', 'first day (YYYY-MM-DD); default: the first day with activity', parseDay)
    .option('--to <date>', 'last day (YYYY-MM-DD); default: the last day with activity', parseDay)
    .option('--html <file>', 'write a self-contained HTML report with charts', outputPath)
    .option('--json', 'print the report as JSON')
    .option('--csv <dir>', 'write one CSV file per dataset into this folder', outputPath)
    .option('--force', 'overwrite an --html file or --csv files that are not a wa-lake report')
    .option(
      '--lurker-days <n>',
      'a member without activity for this many days is a lurker',
      integerInRange(1, MAX_LURKER_DAYS),
      30
    )
    .option('--top <n>', 'how many top members to list', integerInRange(1, MAX_TOP_MEMBERS), 15)
    .option(
      '--max-age <seconds>',
      "serve a report kept at most this long ago (the dashboard's, ADR 0034) instead of counting; 0 counts now",
      integerInRange(0, MAX_REPORT_AGE_SECONDS),
      0
    )
    .action(async (options: ReportOptions) => {
      const outputs = [options.html, options.json, options.csv].filter((value) => value !== undefined);
      if (outputs.length !== 1) throw new Error('choose exactly one output: --html FILE, --json or --csv DIR');
      // YYYY-MM-DD strings compare like the days they name; an inverted range is refused, never zero totals.
      if (options.from && options.to && options.from > options.to)
        throw new Error(`--from ${options.from} is after --to ${options.to}; the first day must come first`);
      checkReportOutput(options, currentProtectedFolders());
      const report = await withLakePool(async (pool) => {
        const zoneWarning = await engagementZoneWarning(pool, process.env);
        if (zoneWarning !== null) process.stderr.write(zoneWarning);
        const read = await new KeptEngagementReports(pool, options.maxAge * 1000).read({
          groupJid: options.group ?? null,
          from: options.from ?? null,
          to: options.to ?? null,
          lurkerDays: options.lurkerDays,
          topMembers: options.top,
        });
        if (read.wasKept)
          process.stderr.write(`wa-lake report: numbers as of ${read.asOf.toISOString()} (a kept report)\n`);
        return read.report;
      });
      // A default range shortened to fit one report (docs/engagement.md "Report range"): said on stderr, so --json
      // stays one JSON document on stdout (where `rangeNote` says it too).
      if (report.rangeNote !== null)
        process.stderr.write(`wa-lake report: ${report.rangeNote}; pass --from and --to for other days\n`);
      printLine(await writeReport(report, options));
    });
}
