import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  createPool,
  readEngagementReport,
  readFirstResponseSummary,
  type EngagementReport,
  type FirstResponseSummary,
} from '../../lake/index.js';
import { countNoun } from '../count-noun.js';
import { memberLabel } from '../report/render-charts.js';
import { renderReportHtml } from '../report/render-html.js';
import { toTerminalText } from '../terminal-text.js';

/** The engagement part of the demo summary, counted from the lake. */
export interface DemoEngagement {
  messages: number;
  activeMembers: number;
  groups: number;
  reactions: number;
  /** Median minutes to another member's first response to a conversation start; null when none was answered. */
  firstResponseMedianMinutes: number | null;
  /** Rows of `engagement_unanswered`: questions and newcomers' first messages with no answer within 24 h (ADR 0020). */
  unanswered: number;
}

/** What the demo learnt about engagement: the counts, the summary lines and where the HTML report is. */
export interface DemoEngagementResult {
  engagement: DemoEngagement;
  reportPath: string;
  lines: string[];
}

/**
 * Reads the engagement report of the demo's lake, writes it as `engagement-report.html` into the data
 * folder and sums it up in five lines (six when the range was shortened to fit one report).
 *
 * @throws pg.DatabaseError when the lake cannot be read; NodeJS.ErrnoException when the file cannot be written.
 */
export async function writeDemoEngagement(databaseUrl: string, dataDir: string): Promise<DemoEngagementResult> {
  const pool = createPool(databaseUrl, { max: 2 });
  let report: EngagementReport;
  let response: FirstResponseSummary;
  try {
    report = await readEngagementReport(pool, { groupJid: null, from: null, to: null, lurkerDays: 30, topMembers: 15 });
    response = await readFirstResponseSummary(pool);
  } finally {
    await pool.end();
  }
  const reportPath = resolve(join(dataDir, 'engagement-report.html'));
  // Private like every file of the data folder: the report names members (ADR 0014 decision 6).
  await writeFile(reportPath, renderReportHtml(report, new Date()), { encoding: 'utf8', mode: 0o600 });
  const lines = demoEngagementLines(report);
  const { messages, activeMembers, groups, reactions } = report.totals;
  const { firstResponseMedianMinutes, unanswered } = response;
  const engagement = { messages, activeMembers, groups, reactions, firstResponseMedianMinutes, unanswered };
  return { engagement, reportPath, lines };
}

/** The demo engagement report's summary lines (a sixth names a shortened range); remote text in them is escaped (architecture.md §10). */
export function demoEngagementLines(report: EngagementReport): string[] {
  const { messages, activeMembers, groups, reactions, joins, leaves } = report.totals;
  const last = report.activeMembers.at(-1);
  const top = report.topMembers[0];
  return [
    `engagement (days in ${report.timeZone}, ${report.from ?? '—'} to ${report.to ?? '—'})`,
    `  messages          : ${String(messages)} in ${countNoun(groups, 'group')}, ${countNoun(reactions, 'reaction')}`,
    `  active members    : ${String(activeMembers)}${last ? ` (last day DAU ${String(last.dau)} · WAU ${String(last.wau)} · MAU ${String(last.mau)})` : ''}`,
    `  joins / leaves    : ${String(joins)} / ${String(leaves)}`,
    // A push name is a remote field: its line breaks are escaped too, so it cannot forge a line of the summary.
    `  top member        : ${top ? `${toTerminalText(memberLabel(top))} (${countNoun(top.messages, 'message')})` : '—'}`,
    ...(report.rangeNote === null ? [] : [`  range             : ${report.rangeNote}`]),
  ];
}
