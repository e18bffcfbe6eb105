import type { EngagementReport } from '../../lake/index.js';
import { toTerminalText } from '../terminal-text.js';
import { renderSvg, type ChartSpec } from './chart-svg.js';
import { describeCoverage } from './coverage-shading.js';
import { memberLabel, reportChartSpecs } from './render-charts.js';

/** Text as HTML: `&`, `<`, `>`, quotes escaped. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * A remote party's text (member name, group subject, id) as a table cell shows it, in the report file and on the
 * dashboard alike: whole, every control character and bidi override or isolate shown as its `\uXXXX` escape (as the
 * terminal shows it, `toTerminalText`) so none turns the text around or hides in it, then escaped as HTML.
 */
export const tableText = (text: string): string => escapeHtml(toTerminalText(text));

/** Table cells of `values`, each as {@link tableText}; `null` as `—`. */
export const tableCells = (values: readonly (string | number | null)[]): string =>
  values.map((value) => `<td>${value === null ? '—' : tableText(String(value))}</td>`).join('');

/** A table cell naming a member: a link to `href` when there is one, else plain text. */
export const memberCell = (label: string, href: string | undefined): string =>
  `<td>${href === undefined ? tableText(label) : `<a href="${escapeHtml(href)}">${tableText(label)}</a>`}</td>`;

// Everything the page needs is inline: no script, font, image or style sheet is fetched.
export const REPORT_STYLE = `
  body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
  h1 { margin-bottom: 4px; } .meta { color: #666; margin-top: 0; }
  .totals { display: flex; gap: 16px; flex-wrap: wrap; margin: 16px 0; }
  .total { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
  .total b { display: block; font-size: 1.5em; }
  figure.chart { margin: 28px 0; } figcaption { font-weight: 600; margin-bottom: 6px; }
  table { border-collapse: collapse; margin: 12px 0 28px; } td, th { border-bottom: 1px solid #eee; padding: 4px 10px; text-align: right; }
  td:first-child, th:first-child { text-align: left; }
  .change { display: block; color: #666; font-size: 0.85em; } .up { color: #1a7f37; } .down { color: #b42318; }`;

/**
 * When the report was made, to the minute, in the report's own time zone: `2026-12-03 18:19 (America/Sao_Paulo)`
 * instead of a raw ISO string with milliseconds. The Swedish locale writes dates as ISO does.
 */
export function formatGeneratedAt(generatedAt: Date, timeZone: string): string {
  const local = new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(generatedAt);
  return `${local} (${timeZone})`;
}

/** How the report's sections link a member and draw a chart: the standalone file's way unless given. */
export interface ReportLinks {
  /** The member page of a participant (the dashboard's), undefined for one without a page; the file links none. */
  memberHref?: (participantId: string) => string | undefined;
  /** One chart as HTML; the file draws SVG on the server (see {@link renderChartFigure}). */
  renderChart?: (chart: ChartSpec) => string;
}

/** A chart as a figure with the SVG ECharts draws on the server: no script needed to see it. */
export function renderChartFigure(chart: ChartSpec): string {
  return `<figure class="chart" id="${chart.id}"><figcaption>${escapeHtml(chart.title)}</figcaption>${renderSvg(chart.option, chart.height)}</figure>`;
}

const TOTAL_LABELS: Record<keyof EngagementReport['totals'], string> = {
  messages: 'messages',
  activeMembers: 'active members',
  groups: 'groups',
  reactions: 'reactions',
  joins: 'joins',
  leaves: 'leaves',
};

/** A total beside the previous period's (ADR 0025): `+12 (+10.8 %) vs 111`. */
function renderTotals(report: EngagementReport): string {
  const previous = report.previousPeriod;
  return report.totalsComparison
    .map((row) => {
      const sign = row.change > 0 ? '+' : '';
      const percent = row.changePercent === null ? '' : ` (${sign}${String(row.changePercent)} %)`;
      const trend = row.change > 0 ? 'up' : row.change < 0 ? 'down' : '';
      const versus = previous
        ? `<span class="change ${trend}" title="${escapeHtml(`${previous.from} to ${previous.to}`)}">${sign}${String(row.change)}${percent} vs ${String(row.previous)}</span>`
        : '';
      return `<div class="total" id="total-${row.metric}"><b>${String(row.current)}</b>${TOTAL_LABELS[row.metric]}${versus}</div>`;
    })
    .join('');
}

function renderTables(report: EngagementReport, links: ReportLinks): string {
  const memberRows = report.topMembers
    .map((m) => {
      const name = memberCell(memberLabel(m), links.memberHref?.(m.participantId));
      return `<tr>${name}${tableCells([m.messages, m.replies, m.reactionsGiven])}</tr>`;
    })
    .join('');
  const groupRows = report.groups
    .map((g) => `<tr>${tableCells([g.subject ?? g.groupJid, g.messages, g.activeMembers])}</tr>`)
    .join('');
  const levelRows = report.levels
    .map(
      (l) =>
        `<tr>${tableCells([l.month.slice(0, 7), l.advocates, l.contributors, l.participants, l.explorers, l.movedUp, l.held, l.movedDown, l.new, l.gone])}</tr>`
    )
    .join('');
  const funnelRows = report.newcomerFunnel
    .map(
      (c) =>
        `<tr>${tableCells([c.cohortWeek, c.joined, c.firstMessage, c.answeredWithin24h, c.activeWeek4, c.activeWeek12])}</tr>`
    )
    .join('');
  return `<h2>Top members</h2>
<table id="top-members-table"><tr><th>member</th><th>messages</th><th>replies</th><th>reactions given</th></tr>${memberRows}</table>
<h2>Groups</h2>
<table><tr><th>group</th><th>messages</th><th>active members</th></tr>${groupRows}</table>
<h2>Levels: members per level and how they moved since the month before</h2>
<table id="level-movements"><tr><th>month</th><th>advocates</th><th>contributors</th><th>participants</th><th>explorers</th><th>moved up</th><th>held</th><th>moved down</th><th>new</th><th>gone</th></tr>${levelRows}</table>
<h2>Newcomer funnel</h2>
<table id="newcomer-funnel-table"><tr><th>join week</th><th>joined</th><th>first message</th><th>answered within 24 h</th><th>active in week 4</th><th>active in week 12</th></tr>${funnelRows}</table>
`;
}

function renderExportDays(report: EngagementReport): string {
  const exportDaysByGroup = new Map<string, EngagementReport['exportDays']>();
  for (const row of report.exportDays)
    exportDaysByGroup.set(row.groupJid, [...(exportDaysByGroup.get(row.groupJid) ?? []), row]);
  const exportRows = [...exportDaysByGroup]
    .map(([groupJid, days]) => {
      const subject = report.groups.find((g) => g.groupJid === groupJid)?.subject ?? groupJid;
      const messages = days.reduce((sum, day) => sum + day.messages, 0);
      return `<tr><td>${escapeHtml(subject)}</td><td>${String(days.length)}</td><td>${escapeHtml(days[0]?.day ?? '')} to ${escapeHtml(days.at(-1)?.day ?? '')}</td><td>${String(messages)}</td></tr>`;
    })
    .join('');
  return exportRows === ''
    ? ''
    : `<h2>Days counted from chat exports</h2>
<p class="meta">Days the lake did not observe, filled from WhatsApp "Export chat" files (minute-precision times, senders as the exporting phone wrote them).</p>
<table><tr><th>group</th><th>days</th><th>between</th><th>messages</th></tr>${exportRows}</table>\n`;
}

/**
 * The report's content (ADR 0025): each total beside the previous period's, the charts as
 * inline SVG, and the tables. The standalone file and the dashboard's pages both wrap it.
 */
export function renderReportSections(report: EngagementReport, links: ReportLinks = {}): string {
  const charts = reportChartSpecs(report)
    .map(links.renderChart ?? renderChartFigure)
    .join('\n');
  const previous = report.previousPeriod;
  const versus = previous
    ? `<p class="meta">Each total beside the ${escapeHtml(previous.from)} to ${escapeHtml(previous.to)} period of equal length.</p>`
    : '';
  // Says how to read the shaded days of the daily charts (ADR 0016), in the file and on the dashboard alike.
  const coverage = `<p class="meta coverage">${escapeHtml(describeCoverage(report.coverage))}</p>`;
  return `${coverage}
${versus}<div class="totals">${renderTotals(report)}</div>
${charts}
${renderTables(report, links)}${renderExportDays(report)}`;
}

/** The report's scope and range, as its header line says them. */
export function describeReportScope(report: EngagementReport, subject: string | null = null): string {
  const named = subject ?? report.groups.find((group) => group.groupJid === report.groupJid)?.subject ?? null;
  const scope = report.groupJid ? `group ${named ? `${named} (${report.groupJid})` : report.groupJid}` : 'all groups';
  const range = `${scope}, ${report.from ?? '—'} to ${report.to ?? '—'} (days in ${report.timeZone})`;
  return report.rangeNote === null ? range : `${range}; ${report.rangeNote}`;
}

/**
 * How every HTML report begins, byte for byte: `report --html` overwrites a file only when it starts with this
 * (`checkReportOutput`), so the generator marker sits in the first line after the doctype.
 */
export const REPORT_HTML_START =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="wa-lake report">';

/**
 * The self-contained HTML report: totals, the charts as inline SVG, and the tables. Opens
 * offline; contains no script.
 */
export function renderReportHtml(report: EngagementReport, generatedAt: Date): string {
  return `${REPORT_HTML_START}
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>WhatsApp engagement report</title><style>${REPORT_STYLE}</style></head>
<body>
<h1>WhatsApp engagement</h1>
<p class="meta">${escapeHtml(describeReportScope(report))}, generated ${escapeHtml(formatGeneratedAt(generatedAt, report.timeZone))}</p>
${renderReportSections(report)}</body></html>
`;
}
