import { describe, expect, it } from 'vitest';
import { demoEngagementLines } from '../../../../cli/demo/demo-engagement.js';
import { renderReportCharts } from '../../../../cli/report/render-charts.js';
import { printLine } from '../../../../cli/commands/shared.js';
import { emptyReport } from '../../../helpers/engagement-report.js';

const HOSTILE = '\u001b[2J\u0007EVIL\r\nOK: fake line\u202eRTL';

const report = emptyReport({
  from: '2025-06-01',
  to: '2025-06-01',
  groups: [{ groupJid: '120363000000000001@g.us', subject: `G${HOSTILE}`, messages: 1, activeMembers: 1 }],
  messagesPerDay: [{ day: '2025-06-01', groupJid: '120363000000000001@g.us', messages: 1 }],
  topMembers: [
    {
      participantId: '100000000000011@lid',
      participantIds: ['100000000000011@lid'],
      memberId: null,
      displayName: HOSTILE,
      displayNameIsPhone: false,
      messages: 1,
      replies: 0,
      reactionsGiven: 0,
    },
  ],
});

describe('remote names in the demo summary and the report charts', () => {
  it('a push name cannot forge a line of the demo summary: its line breaks and controls are escaped', () => {
    const lines = demoEngagementLines(report);
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe(
      '  top member        : \\u001b[2J\\u0007EVIL\\u000d\\u000aOK: fake line\\u202eRTL (1 message)'
    );
    const printed: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk: string | Uint8Array): boolean => printed.push(String(chunk)) > 0;
    try {
      for (const line of lines) printLine(line);
    } finally {
      process.stdout.write = write;
    }
    expect(
      printed
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('OK:'))
    ).toEqual([]);
  });

  it('the SVG charts show ESC and BEL from subjects and push names as escapes, never raw', () => {
    const svg = renderReportCharts(report)
      .map((chart) => chart.svg)
      .join('');
    expect(svg).toContain('EVIL');
    // eslint-disable-next-line no-control-regex -- the test looks for raw control characters
    expect(svg).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u);
    expect(svg).toContain('\\u001b[2J\\u0007EVIL');
  });
});
