import { describe, expect, it } from 'vitest';
import { renderReportCharts } from '../../../../cli/report/render-charts.js';
import type { EngagementReport } from '../../../../lake/index.js';
import { emptyReport } from '../../../helpers/engagement-report.js';

const report = (days: string[]): EngagementReport =>
  emptyReport({
    timeZone: 'America/Sao_Paulo',
    from: days[0] ?? null,
    to: days.at(-1) ?? null,
    totals: { messages: 9, activeMembers: 6, groups: 1, reactions: 2, joins: 1, leaves: 1 },
    activeMembers: days.map((day) => ({ day, dau: 6, wau: 6, mau: 6 })),
  });

/** The SVG of the DAU/WAU/MAU chart. */
const activeMembersSvg = (days: string[]): string =>
  renderReportCharts(report(days)).find((chart) => chart.id === 'active-members')?.svg ?? '';

/** Circles drawn as arcs: the legend's three icons, and a point per series and day where points are drawn. */
const arcs = (svg: string): number => (svg.match(/<path d="M[^"]*A/g) ?? []).length;

describe('the DAU/WAU/MAU chart', () => {
  it('draws the one day of a one-day report as points, where a line would draw nothing', () => {
    // The legend is the same with no data; DAU, WAU and MAU add a point each.
    expect(arcs(activeMembersSvg(['2025-06-01']))).toBe(arcs(activeMembersSvg([])) + 3);
  });

  it('draws a range of days as lines', () => {
    expect(activeMembersSvg(['2025-06-01', '2025-06-02'])).toMatch(/<path d="M[^"]+L/);
  });
});

describe('count axes', () => {
  it('label messages and members with whole numbers only, even when the counts are 1 or 2', () => {
    const small: EngagementReport = {
      ...report(['2025-06-01', '2025-06-02']),
      groups: [{ groupJid: '120363000000000001@g.us', subject: 'G', messages: 3, activeMembers: 1 }],
      messagesPerDay: [
        { day: '2025-06-01', groupJid: '120363000000000001@g.us', messages: 1 },
        { day: '2025-06-02', groupJid: '120363000000000001@g.us', messages: 2 },
      ],
      activeMembers: ['2025-06-01', '2025-06-02'].map((day) => ({ day, dau: 1, wau: 1, mau: 1 })),
      joinsLeaves: [{ day: '2025-06-01', joins: 1, leaves: 0 }],
      lurkers: [{ groupJid: '120363000000000001@g.us', members: 2, lurkers: 1 }],
    };
    const numberLabels = renderReportCharts(small)
      .filter((chart) => chart.id !== 'cohort-retention')
      .flatMap((chart) => [...chart.svg.matchAll(/<text[^>]*>(-?[\d.]+)<\/text>/g)].map((match) => match[1]));
    expect(numberLabels.length).toBeGreaterThan(8);
    expect(numberLabels.filter((label) => label?.includes('.'))).toEqual([]);
  });
});
