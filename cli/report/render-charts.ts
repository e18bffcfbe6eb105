import { isPhoneLikeName } from '../../common/phone-like-name.js';
import type { EngagementReport } from '../../lake/index.js';
import { chartLabel } from './chart-label.js';
import { chartBody, COUNT_AXIS, HEIGHT, renderSvg, type ChartBody, type ChartSpec } from './chart-svg.js';
import { coverageMarkAreas } from './coverage-shading.js';
import { questionChartSpecs } from './render-question-charts.js';

/** One chart of the report: a title, and the SVG markup Apache ECharts rendered on the server. */
export interface RenderedChart {
  id: string;
  title: string;
  svg: string;
}

/** Groups drawn as their own series in "messages per day"; the rest are summed as "other groups". */
const MAX_GROUP_SERIES = 8;

/**
 * A phone number as the HTML report shows it (ADR 0020): the country code's first two digits and the last two,
 * the rest as `•`, so a reader can tell two numbers apart without reading either. `+5511987654321` → `+55•••••••••21`.
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 4) return '+' + '•'.repeat(digits.length);
  return `+${digits.slice(0, 2)}${'•'.repeat(digits.length - 4)}${digits.slice(-2)}`;
}

/**
 * Whether a display name is masked as a phone number (docs/engagement.md "Names"): the phone number itself (no name
 * known, `displayNameIsPhone`), or a phone-like name (`isPhoneLikeName`), such as a push name `+55 11 91234-5678`
 * that shows the number as plainly.
 */
export function isMaskedAsPhone(member: { displayName: string; displayNameIsPhone: boolean }): boolean {
  return member.displayNameIsPhone || isPhoneLikeName(member.displayName);
}

/**
 * A person as the report's table and chart show them (ADR 0020): the display name (member
 * name, push name, business name), never a bare LID where a name is known; a phone number, or a name that is one
 * ({@link isMaskedAsPhone}), masked.
 */
export function memberLabel(member: { displayName: string; displayNameIsPhone: boolean }): string {
  return isMaskedAsPhone(member) ? maskPhone(member.displayName) : member.displayName;
}

/**
 * Draws the charts of the report: messages per day per group, DAU/WAU/MAU, top members, joins
 * vs leaves, the join-week cohort retention heatmap, lurkers per group; then the newcomer funnel, levels per month
 * and the weekday × hour heatmap (ADR 0025).
 */
export function reportChartSpecs(report: EngagementReport): ChartSpec[] {
  const subjects = new Map(report.groups.map((group) => [group.groupJid, chartLabel(group.subject ?? group.groupJid)]));
  return [
    { id: 'messages-per-day', title: 'Messages per day, by group', ...messagesPerDay(report, subjects) },
    { id: 'active-members', title: 'Active members (DAU / WAU / MAU)', ...activeMembers(report) },
    { id: 'top-members', title: 'Top members by messages', ...topMembers(report) },
    { id: 'joins-leaves', title: 'Joins vs leaves per day', ...joinsLeaves(report) },
    { id: 'cohort-retention', title: 'New-member retention by join week', ...cohortHeatmap(report) },
    {
      id: 'lurkers',
      title: `Lurkers (no activity in ${String(report.lurkerDays)} days), by group`,
      ...lurkers(report, subjects),
    },
    ...questionChartSpecs(report),
  ];
}

/** The report's charts as SVG drawn on the server (the standalone file: no script in the page). */
export function renderReportCharts(report: EngagementReport): RenderedChart[] {
  return reportChartSpecs(report).map(({ id, title, option, height }) => ({
    id,
    title,
    svg: renderSvg(option, height),
  }));
}

function days(report: EngagementReport): string[] {
  const result: string[] = [];
  if (!report.from || !report.to) return result;
  for (let day = new Date(`${report.from}T00:00:00Z`); day <= new Date(`${report.to}T00:00:00Z`);) {
    result.push(day.toISOString().slice(0, 10));
    day = new Date(day.getTime() + 86_400_000);
  }
  return result;
}

function messagesPerDay(report: EngagementReport, subjects: Map<string, string>): ChartBody {
  const axis = days(report);
  const index = new Map(axis.map((day, i) => [day, i]));
  const top = report.groups.slice(0, MAX_GROUP_SERIES).map((group) => group.groupJid);
  const series = new Map<string, number[]>(top.map((jid) => [jid, axis.map(() => 0)]));
  const other = axis.map(() => 0);
  for (const row of report.messagesPerDay) {
    const i = index.get(row.day);
    if (i === undefined) continue;
    const values = series.get(row.groupJid) ?? other;
    values[i] = (values[i] ?? 0) + row.messages;
  }
  const lines = [...series].map(([jid, data]) => ({ name: subjects.get(jid) ?? jid, data }));
  if (report.groups.length > MAX_GROUP_SERIES) lines.push({ name: 'other groups', data: other });
  return chartBody({
    legend: { type: 'scroll', top: 0 },
    grid: { top: 40, left: 60, right: 20, bottom: 40 },
    xAxis: { type: 'category', data: axis },
    yAxis: { ...COUNT_AXIS, name: 'messages' },
    series: lines.map((line, i) => ({
      ...line,
      type: 'bar',
      stack: 'messages',
      barCategoryGap: '10%',
      ...(i === 0 ? unobservedShading(report) : {}),
    })),
  });
}

function activeMembers(report: EngagementReport): ChartBody {
  return chartBody({
    legend: { top: 0 },
    grid: { top: 40, left: 60, right: 20, bottom: 40 },
    xAxis: { type: 'category', data: report.activeMembers.map((row) => row.day) },
    yAxis: { ...COUNT_AXIS, name: 'members' },
    series: (['dau', 'wau', 'mau'] as const).map((key, i) => ({
      name: key.toUpperCase(),
      type: 'line',
      // A line needs two days; a one-day report (the demo's) would draw nothing without its point.
      showSymbol: report.activeMembers.length < 2,
      data: report.activeMembers.map((row) => row[key]),
      ...(i === 0 ? unobservedShading(report) : {}),
    })),
  });
}

/**
 * Shades the days the collectors did not observe (dark) or observed in part (light) behind a chart of days (ADR
 * 0016): an empty day there is a gap, not a quiet day. Attached to one series, since a mark area is drawn once
 * per series that carries it.
 */
function unobservedShading(report: EngagementReport): { markArea?: Record<string, unknown> } {
  const data = coverageMarkAreas(report.coverage);
  return data.length === 0 ? {} : { markArea: { silent: true, data } };
}

function topMembers(report: EngagementReport): ChartBody {
  const members = [...report.topMembers].reverse();
  return chartBody(
    {
      legend: { top: 0 },
      grid: { top: 40, left: 200, right: 30, bottom: 30 },
      xAxis: COUNT_AXIS,
      yAxis: { type: 'category', data: members.map((member) => chartLabel(memberLabel(member))) },
      series: [
        { name: 'messages', type: 'bar', data: members.map((m) => m.messages) },
        { name: 'replies', type: 'bar', data: members.map((m) => m.replies) },
        { name: 'reactions given', type: 'bar', data: members.map((m) => m.reactionsGiven) },
      ],
    },
    Math.max(HEIGHT, 60 + members.length * 28)
  );
}

function joinsLeaves(report: EngagementReport): ChartBody {
  return chartBody({
    legend: { top: 0 },
    grid: { top: 40, left: 60, right: 20, bottom: 40 },
    xAxis: { type: 'category', data: report.joinsLeaves.map((row) => row.day) },
    yAxis: { ...COUNT_AXIS, name: 'members' },
    series: [
      { name: 'joins', type: 'bar', data: report.joinsLeaves.map((row) => row.joins) },
      { name: 'leaves', type: 'bar', data: report.joinsLeaves.map((row) => -row.leaves) },
    ],
  });
}

function cohortHeatmap(report: EngagementReport): ChartBody {
  const weeks = [...new Set(report.cohorts.map((row) => row.cohortWeek))].sort();
  const maxOffset = report.cohorts.reduce((max, row) => Math.max(max, row.weekOffset), 0);
  const offsets = Array.from({ length: maxOffset + 1 }, (_, i) => `week ${String(i)}`);
  const sizes = new Map(report.cohorts.map((row) => [row.cohortWeek, row.cohortSize]));
  const rowIndex = new Map(weeks.map((week, i) => [week, i]));
  return chartBody(
    {
      grid: { top: 20, left: 160, right: 30, bottom: 90 },
      xAxis: { type: 'category', data: offsets, splitArea: { show: true } },
      yAxis: {
        type: 'category',
        data: weeks.map((week) => `${week} (${String(sizes.get(week) ?? 0)})`),
        splitArea: { show: true },
      },
      visualMap: { min: 0, max: 1, calculable: false, orient: 'horizontal', left: 'center', bottom: 10 },
      series: [
        {
          name: 'retention',
          type: 'heatmap',
          data: report.cohorts.map((row) => [row.weekOffset, rowIndex.get(row.cohortWeek) ?? 0, row.retention]),
        },
      ],
    },
    Math.max(HEIGHT, 120 + weeks.length * 18)
  );
}

function lurkers(report: EngagementReport, subjects: Map<string, string>): ChartBody {
  const groups = report.lurkers.slice(0, 20).reverse();
  return chartBody(
    {
      legend: { top: 0 },
      grid: { top: 40, left: 200, right: 30, bottom: 30 },
      xAxis: { ...COUNT_AXIS, name: 'members' },
      yAxis: { type: 'category', data: groups.map((row) => subjects.get(row.groupJid) ?? row.groupJid) },
      series: [
        { name: 'active', type: 'bar', stack: 'members', data: groups.map((row) => row.members - row.lurkers) },
        { name: 'lurkers', type: 'bar', stack: 'members', data: groups.map((row) => row.lurkers) },
      ],
    },
    Math.max(HEIGHT, 60 + groups.length * 24)
  );
}
