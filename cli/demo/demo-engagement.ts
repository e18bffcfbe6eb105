import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createPool, readEngagementReport, type EngagementReport } from '../../lake/index.js';
import { renderReportHtml } from '../report/render-html.js';

/** The engagement part of the demo summary (issue #11 item 5), counted from the lake. */
export interface DemoEngagement {
  messages: number;
  activeMembers: number;
  groups: number;
  reactions: number;
}

/** What the demo learnt about engagement: the counts, the five summary lines and where the HTML report is. */
export interface DemoEngagementResult {
  engagement: DemoEngagement;
  reportPath: string;
  lines: string[];
}

/**
 * Reads the engagement report of the demo's lake, writes it as `engagement-report.html` into the data
 * folder and sums it up in five lines (issue #11 item 5).
 *
 * @throws pg.DatabaseError when the lake cannot be read; NodeJS.ErrnoException when the file cannot be written.
 */
export async function writeDemoEngagement(databaseUrl: string, dataDir: string): Promise<DemoEngagementResult> {
  const pool = createPool(databaseUrl, { max: 2 });
  let report: EngagementReport;
  try {
    report = await readEngagementReport(pool, { groupJid: null, from: null, to: null, lurkerDays: 30, topMembers: 15 });
  } finally {
    await pool.end();
  }
  const reportPath = resolve(join(dataDir, 'engagement-report.html'));
  await writeFile(reportPath, renderReportHtml(report, new Date()), 'utf8');
  const { messages, activeMembers, groups, reactions, joins, leaves } = report.totals;
  const last = report.activeMembers.at(-1);
  const top = report.topMembers[0];
  const lines = [
    `engagement (days in ${report.timeZone}, ${report.from ?? '—'} to ${report.to ?? '—'})`,
    `  messages          : ${String(messages)} in ${String(groups)} group(s), ${String(reactions)} reaction(s)`,
    `  active members    : ${String(activeMembers)}${last ? ` (last day DAU ${String(last.dau)} · WAU ${String(last.wau)} · MAU ${String(last.mau)})` : ''}`,
    `  joins / leaves    : ${String(joins)} / ${String(leaves)}`,
    `  top member        : ${top ? `${top.memberId ?? top.participantId} (${String(top.messages)} messages)` : '—'}`,
  ];
  return { engagement: { messages, activeMembers, groups, reactions }, reportPath, lines };
}
