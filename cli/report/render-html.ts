import type { EngagementReport } from '../../lake/index.js';
import { memberLabel, renderReportCharts } from './render-charts.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

// Everything the page needs is inline: no script, font, image or style sheet is fetched (issue #11 item 4).
const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
  h1 { margin-bottom: 4px; } .meta { color: #666; margin-top: 0; }
  .totals { display: flex; gap: 16px; flex-wrap: wrap; margin: 16px 0; }
  .total { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
  .total b { display: block; font-size: 1.5em; }
  figure.chart { margin: 28px 0; } figcaption { font-weight: 600; margin-bottom: 6px; }
  table { border-collapse: collapse; margin: 12px 0 28px; } td, th { border-bottom: 1px solid #eee; padding: 4px 10px; text-align: right; }
  td:first-child, th:first-child { text-align: left; }`;

/**
 * When the report was made, to the minute, in the report's own time zone: `2026-12-03 18:19 (America/Sao_Paulo)`
 * instead of a raw ISO string with milliseconds (issue #26 item 5). The Swedish locale writes dates as ISO does.
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

/**
 * The self-contained HTML report (issue #11 item 4): totals, the six ECharts charts as inline SVG,
 * and the top members and groups as tables. Opens offline; contains no script.
 */
export function renderReportHtml(report: EngagementReport, generatedAt: Date): string {
  const totals: [string, number][] = [
    ['messages', report.totals.messages],
    ['active members', report.totals.activeMembers],
    ['groups', report.totals.groups],
    ['reactions', report.totals.reactions],
    ['joins', report.totals.joins],
    ['leaves', report.totals.leaves],
  ];
  const charts = renderReportCharts(report)
    .map(
      (chart) =>
        `<figure class="chart" id="${chart.id}"><figcaption>${escapeHtml(chart.title)}</figcaption>${chart.svg}</figure>`
    )
    .join('\n');
  const memberRows = report.topMembers
    .map(
      (m) =>
        `<tr><td>${escapeHtml(memberLabel(m))}</td><td>${String(m.messages)}</td><td>${String(m.replies)}</td><td>${String(m.reactionsGiven)}</td></tr>`
    )
    .join('');
  const groupRows = report.groups
    .map(
      (g) =>
        `<tr><td>${escapeHtml(g.subject ?? g.groupJid)}</td><td>${String(g.messages)}</td><td>${String(g.activeMembers)}</td></tr>`
    )
    .join('');
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
  const exportSection =
    exportRows === ''
      ? ''
      : `<h2>Days counted from chat exports</h2>
<p class="meta">Days the lake did not observe, filled from WhatsApp "Export chat" files (minute-precision times, senders as the exporting phone wrote them).</p>
<table><tr><th>group</th><th>days</th><th>between</th><th>messages</th></tr>${exportRows}</table>\n`;
  const scope = report.groupJid ? `group ${report.groupJid}` : 'all groups';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>WhatsApp engagement report</title><style>${STYLE}</style></head>
<body>
<h1>WhatsApp engagement</h1>
<p class="meta">${escapeHtml(scope)}, ${escapeHtml(report.from ?? '—')} to ${escapeHtml(report.to ?? '—')} (days in ${escapeHtml(report.timeZone)}), generated ${escapeHtml(formatGeneratedAt(generatedAt, report.timeZone))}</p>
<div class="totals">${totals.map(([label, value]) => `<div class="total"><b>${String(value)}</b>${label}</div>`).join('')}</div>
${charts}
<h2>Top members</h2>
<table><tr><th>member</th><th>messages</th><th>replies</th><th>reactions given</th></tr>${memberRows}</table>
<h2>Groups</h2>
<table><tr><th>group</th><th>messages</th><th>active members</th></tr>${groupRows}</table>
${exportSection}</body></html>
`;
}
