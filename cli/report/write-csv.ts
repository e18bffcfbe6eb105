import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngagementReport } from '../../lake/index.js';
import { makeDirectory } from '../../common/make-directory.js';
import { toCsvCell } from './csv-cell.js';

function toCsv(columns: readonly string[], rows: readonly object[]): string {
  const lines = [columns.join(',')];
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    lines.push(columns.map((column) => toCsvCell(record[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

type Columns<T> = ReadonlyArray<keyof T & string>;
type Report = EngagementReport;

// The header of every file, so an empty dataset is a header line, not a 0-byte file (ADR 0019).
const TOTALS: readonly string[] = [
  'timeZone',
  'from',
  'to',
  'messages',
  'activeMembers',
  'groups',
  'reactions',
  'joins',
  'leaves',
];
const GROUPS: Columns<Report['groups'][number]> = ['groupJid', 'subject', 'messages', 'activeMembers'];
const MESSAGES_PER_DAY: Columns<Report['messagesPerDay'][number]> = ['day', 'groupJid', 'messages'];
const ACTIVE_MEMBERS: Columns<Report['activeMembers'][number]> = ['day', 'dau', 'wau', 'mau'];
const TOP_MEMBERS: Columns<Report['topMembers'][number]> = [
  'participantId',
  'memberId',
  'displayName',
  'displayNameIsPhone',
  'messages',
  'replies',
  'reactionsGiven',
];
const JOINS_LEAVES: Columns<Report['joinsLeaves'][number]> = ['day', 'joins', 'leaves'];
const COHORTS: Columns<Report['cohorts'][number]> = [
  'cohortWeek',
  'weekOffset',
  'cohortSize',
  'activeMembers',
  'retention',
];
const LURKERS: Columns<Report['lurkers'][number]> = ['groupJid', 'members', 'lurkers'];
const EXPORT_DAYS: Columns<Report['exportDays'][number]> = ['day', 'groupJid', 'messages'];

const TOTALS_COMPARISON: Columns<Report['totalsComparison'][number] & { previousFrom: string; previousTo: string }> = [
  'metric',
  'current',
  'previous',
  'change',
  'changePercent',
  'previousFrom',
  'previousTo',
];
const LEVELS: Columns<Report['levels'][number]> = [
  'month',
  'advocates',
  'contributors',
  'participants',
  'explorers',
  'movedUp',
  'held',
  'movedDown',
  'new',
  'gone',
];
const NEWCOMER_FUNNEL: Columns<Report['newcomerFunnel'][number]> = [
  'cohortWeek',
  'joined',
  'firstMessage',
  'answeredWithin24h',
  'activeWeek4',
  'activeWeek12',
];
const ACTIVITY_HOURS: Columns<Report['activityHours'][number]> = ['weekday', 'hour', 'messages'];
const COVERAGE: Columns<Report['coverage']['days'][number]> = ['day', 'coverage'];

/** Each file `report --csv` writes, with its columns: the first line of each file is its columns joined by commas. */
export const REPORT_CSV_COLUMNS = {
  'totals.csv': TOTALS,
  'groups.csv': GROUPS,
  'messages-per-day.csv': MESSAGES_PER_DAY,
  'active-members.csv': ACTIVE_MEMBERS,
  'top-members.csv': TOP_MEMBERS,
  'joins-leaves.csv': JOINS_LEAVES,
  'cohorts.csv': COHORTS,
  'lurkers.csv': LURKERS,
  'export-days.csv': EXPORT_DAYS,
  'totals-comparison.csv': TOTALS_COMPARISON,
  'levels.csv': LEVELS,
  'newcomer-funnel.csv': NEWCOMER_FUNNEL,
  'activity-hours.csv': ACTIVITY_HOURS,
  'coverage.csv': COVERAGE,
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** The name of one file of `report --csv`. */
export type ReportCsvFile = keyof typeof REPORT_CSV_COLUMNS;

/**
 * Writes each dataset of the report as one CSV file in `dir` (created when missing): `totals.csv`,
 * `groups.csv`, `messages-per-day.csv`, `active-members.csv`, `top-members.csv`, `joins-leaves.csv`,
 * `cohorts.csv`, `lurkers.csv`, `export-days.csv` (days counted from chat exports), `totals-comparison.csv`,
 * `levels.csv`, `newcomer-funnel.csv`, `activity-hours.csv`, `coverage.csv` (per day `full`, `partly` or `none`; no
 * rows when the lake has no coverage records), each with its header line, also when it has no rows.
 *
 * @returns the paths written.
 * @throws DirectoryNotCreatedError when the folder cannot be created; NodeJS.ErrnoException when a file
 *   cannot be written.
 */
export async function writeReportCsv(report: EngagementReport, dir: string): Promise<string[]> {
  makeDirectory(dir);
  const rows: Readonly<Record<ReportCsvFile, readonly object[]>> = {
    'totals.csv': [{ timeZone: report.timeZone, from: report.from, to: report.to, ...report.totals }],
    'groups.csv': report.groups,
    'messages-per-day.csv': report.messagesPerDay,
    'active-members.csv': report.activeMembers,
    'top-members.csv': report.topMembers,
    'joins-leaves.csv': report.joinsLeaves,
    'cohorts.csv': report.cohorts,
    'lurkers.csv': report.lurkers,
    'export-days.csv': report.exportDays,
    'totals-comparison.csv': report.totalsComparison.map((row) => ({
      ...row,
      previousFrom: report.previousPeriod?.from,
      previousTo: report.previousPeriod?.to,
    })),
    'levels.csv': report.levels,
    'newcomer-funnel.csv': report.newcomerFunnel,
    'activity-hours.csv': report.activityHours,
    'coverage.csv': report.coverage.days,
  };
  const paths: string[] = [];
  for (const [name, columns] of Object.entries(REPORT_CSV_COLUMNS) as [ReportCsvFile, readonly string[]][]) {
    const path = join(dir, name);
    await writeFile(path, toCsv(columns, rows[name]), 'utf8');
    paths.push(path);
  }
  return paths;
}
