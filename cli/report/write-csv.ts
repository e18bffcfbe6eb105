import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngagementReport } from '../../lake/index.js';
import { makeDirectory } from '../../common/make-directory.js';
import { toCsvCell } from './csv-cell.js';

function toCsv(rows: readonly object[]): string {
  const first = rows[0];
  if (!first) return '';
  const columns = Object.keys(first);
  const lines = [columns.join(',')];
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    lines.push(columns.map((column) => toCsvCell(record[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * Writes each dataset of the report as one CSV file in `dir` (created when missing): `totals.csv`,
 * `groups.csv`, `messages-per-day.csv`, `active-members.csv`, `top-members.csv`, `joins-leaves.csv`,
 * `cohorts.csv`, `lurkers.csv`.
 *
 * @returns the paths written.
 * @throws DirectoryNotCreatedError when the folder cannot be created; NodeJS.ErrnoException when a file
 *   cannot be written.
 */
export async function writeReportCsv(report: EngagementReport, dir: string): Promise<string[]> {
  makeDirectory(dir);
  const files: [string, readonly object[]][] = [
    ['totals.csv', [{ timeZone: report.timeZone, from: report.from, to: report.to, ...report.totals }]],
    ['groups.csv', report.groups],
    ['messages-per-day.csv', report.messagesPerDay],
    ['active-members.csv', report.activeMembers],
    ['top-members.csv', report.topMembers],
    ['joins-leaves.csv', report.joinsLeaves],
    ['cohorts.csv', report.cohorts],
    ['lurkers.csv', report.lurkers],
  ];
  const paths: string[] = [];
  for (const [name, rows] of files) {
    const path = join(dir, name);
    await writeFile(path, toCsv(rows), 'utf8');
    paths.push(path);
  }
  return paths;
}
