import { describe, expect, it } from 'vitest';
import { isMaskedAsPhone, memberLabel } from '../../../../cli/report/render-charts.js';
import { renderReportHtml } from '../../../../cli/report/render-html.js';
import type { EngagementReport } from '../../../../lake/index.js';
import { emptyReport } from '../../../helpers/engagement-report.js';

const named = (displayName: string): { displayName: string; displayNameIsPhone: boolean } => ({
  displayName,
  displayNameIsPhone: false,
});

describe('isMaskedAsPhone', () => {
  it('masks the phone number shown because no name is known', () => {
    expect(isMaskedAsPhone({ displayName: '+5511912345678', displayNameIsPhone: true })).toBe(true);
  });

  it.each([['+55 11 91234-5678'], ['(11) 91234-5678'], ['11.9123.4567'], [' 5511912345678 '], ['12345678']])(
    'masks the name %j, made only of phone-number characters with 8 or more digits',
    (name) => {
      expect(isMaskedAsPhone(named(name))).toBe(true);
      expect(memberLabel(named(name))).toMatch(/^\+\d\d•+\d\d$/);
    }
  );

  it.each([['Ana'], ['Ana 11 91234-5678'], ['1234567'], ['(11) 2024'], ['+55 11 9123-456x'], ['']])(
    'leaves the name %j as it is',
    (name) => {
      expect(isMaskedAsPhone(named(name))).toBe(false);
      expect(memberLabel(named(name))).toBe(name);
    }
  );
});

describe('the HTML report', () => {
  it('masks a push name that is a phone number, in the top members table and chart', () => {
    const participantId = '100000000000001@lid';
    const report: EngagementReport = emptyReport({
      from: '2025-06-01',
      to: '2025-06-01',
      topMembers: [
        {
          participantId,
          participantIds: [participantId],
          memberId: null,
          displayName: '+55 11 91234-5678',
          displayNameIsPhone: false,
          messages: 3,
          replies: 0,
          reactionsGiven: 0,
        },
      ],
    });
    const html = renderReportHtml(report, new Date('2025-06-02T00:00:00Z'));
    expect(html).not.toContain('91234-5678');
    expect(html).not.toContain('5511912345678');
    expect(html.match(/\+55•••••••••78/g)?.length).toBeGreaterThanOrEqual(2);
  });
});
