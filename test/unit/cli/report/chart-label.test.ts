import { describe, expect, it } from 'vitest';
import { chartLabel, MAX_CHART_LABEL_CHARS } from '../../../../cli/report/chart-label.js';
import { renderReportCharts } from '../../../../cli/report/render-charts.js';
import type { EngagementReport } from '../../../../lake/index.js';
import { emptyReport } from '../../../helpers/engagement-report.js';

const GROUP = '120363000000000001@g.us';

describe('chartLabel', () => {
  it('keeps a short name as it is', () => {
    expect(chartLabel('Ana Souza')).toBe('Ana Souza');
    expect(chartLabel('Grupo de Leitura 📚')).toBe('Grupo de Leitura 📚');
  });

  it(`shortens a long name to ${String(MAX_CHART_LABEL_CHARS)} characters ending in an ellipsis`, () => {
    const label = chartLabel('x'.repeat(5_000));
    expect([...label]).toHaveLength(MAX_CHART_LABEL_CHARS);
    expect(label.endsWith('…')).toBe(true);
    expect(chartLabel('Clube de leitura das quartas-feiras à noite no centro')).toBe('Clube de leitura das quartas…');
  });

  it('removes bidi embedding, override and isolate controls, so no label reads backwards', () => {
    const controls = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    for (const control of controls) expect(chartLabel(`Ana ${control}gpj.exe`), control).toBe('Ana gpj.exe');
  });

  it('puts a name on one line', () => {
    expect(chartLabel('Ana\nSouza\tlinha')).toBe('Ana Souza linha');
  });
});

describe('the report charts', () => {
  const longName = 'N'.repeat(5_000);
  const report = emptyReport({
    from: '2025-06-01',
    to: '2025-06-01',
    groups: [{ groupJid: GROUP, subject: 'Leitura \u202eadmin oficial', messages: 1, activeMembers: 1 }],
    messagesPerDay: [{ day: '2025-06-01', groupJid: GROUP, messages: 1 }],
    lurkers: [{ groupJid: GROUP, members: 2, lurkers: 1 }],
  });
  const top: EngagementReport = { ...report, topMembers: [member(longName)] };

  it('label a 5,000-character push name shortened, and a group subject without its right-to-left override', () => {
    const svgs = renderReportCharts(top).map((chart) => chart.svg);
    const text = svgs.join('\n');
    expect(text).not.toContain('N'.repeat(MAX_CHART_LABEL_CHARS));
    expect(text).toContain(`${'N'.repeat(MAX_CHART_LABEL_CHARS - 1)}…`);
    expect(text).not.toContain('\u202e');
    expect(text).toContain('Leitura admin oficial');
  });
});

function member(displayName: string): EngagementReport['topMembers'][number] {
  const participantId = '100000000000001@lid';
  return {
    participantId,
    participantIds: [participantId],
    memberId: null,
    displayName,
    displayNameIsPhone: false,
    messages: 3,
    replies: 1,
    reactionsGiven: 0,
  };
}
