import type { EngagementReport } from '../../lake/index.js';
import { chartBody, COUNT_AXIS, HEIGHT, type ChartBody, type ChartSpec } from './chart-svg.js';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LEVELS = [
  ['advocates', 'advocate (30 days a quarter)'],
  ['contributors', 'contributor (7 days a month)'],
  ['participants', 'participant (2 days a week)'],
  ['explorers', 'explorer (present in the quarter)'],
] as const;
const FUNNEL_STEPS = [
  ['joined', 'joined'],
  ['firstMessage', 'first message'],
  ['answeredWithin24h', 'answered within 24 h'],
  ['activeWeek4', 'active in week 4'],
  ['activeWeek12', 'active in week 12'],
] as const;

/**
 * The charts of ADR 0025 (docs/engagement.md "Newcomers", "Levels", "Hours"): the newcomer funnel per
 * join week, members per level per month, and messages per weekday × local hour.
 */
export function questionChartSpecs(report: EngagementReport): ChartSpec[] {
  return [
    { id: 'newcomer-funnel', title: 'Newcomers by join week: from joining to week 12', ...newcomerFunnel(report) },
    { id: 'levels', title: 'Members per level, by month', ...levels(report) },
    {
      id: 'activity-hours',
      title: `Messages by weekday and hour (${report.timeZone})`,
      ...activityHours(report),
    },
  ];
}

function newcomerFunnel(report: EngagementReport): ChartBody {
  const cohorts = report.newcomerFunnel;
  return chartBody({
    legend: { top: 0 },
    grid: { top: 40, left: 60, right: 20, bottom: 40 },
    xAxis: { type: 'category', data: cohorts.map((row) => row.cohortWeek) },
    yAxis: { ...COUNT_AXIS, name: 'members' },
    // A step not reached yet (week 4 or 12 beyond the last day) is a gap, not 0.
    series: FUNNEL_STEPS.map(([key, name]) => ({ name, type: 'bar', data: cohorts.map((row) => row[key] ?? '-') })),
  });
}

function levels(report: EngagementReport): ChartBody {
  return chartBody({
    legend: { top: 0 },
    grid: { top: 40, left: 60, right: 20, bottom: 40 },
    xAxis: { type: 'category', data: report.levels.map((row) => row.month.slice(0, 7)) },
    yAxis: { ...COUNT_AXIS, name: 'members' },
    series: LEVELS.map(([key, name]) => ({
      name,
      type: 'bar',
      stack: 'levels',
      data: report.levels.map((row) => row[key]),
    })),
  });
}

function activityHours(report: EngagementReport): ChartBody {
  const max = report.activityHours.reduce((top, row) => Math.max(top, row.messages), 0);
  return chartBody(
    {
      grid: { top: 20, left: 60, right: 30, bottom: 90 },
      xAxis: {
        type: 'category',
        data: Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, '0')),
        splitArea: { show: true },
      },
      yAxis: { type: 'category', data: WEEKDAYS, inverse: true, splitArea: { show: true } },
      visualMap: { min: 0, max: Math.max(max, 1), calculable: false, orient: 'horizontal', left: 'center', bottom: 10 },
      series: [
        {
          name: 'messages',
          type: 'heatmap',
          data: report.activityHours.map((row) => [row.hour, row.weekday - 1, row.messages]),
        },
      ],
    },
    Math.max(HEIGHT, 300)
  );
}
