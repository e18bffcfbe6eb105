import { describe, expect, it } from 'vitest';
import {
  activeMembersPerDay,
  cohortActiveInWeek,
  cohortMemberWeeks,
  cohortRetention,
  countActivePeople,
  dayText,
  epochDay,
  levelMonths,
  personDays,
  readPresence,
} from '../../../../lake/engagement/report-presence.js';

const ordinal = (month: string): number => epochDay(`${month}-01`);
const maskOf = (...days: number[]): number => days.reduce((mask, day) => mask | (1 << (day - 1)), 0);
const row = (groupJid: string, participantId: string, personKey: string, months: [string, number][]) => ({
  groupJid,
  participantId,
  personKey,
  months: months.map(([month, mask]) => `${String(ordinal(month))}:${String(mask)}`).join(','),
});

describe('report presence', () => {
  it('reads month masks as days, keeps the span asked, and merges a participant named by two keys', () => {
    const members = readPresence(
      [
        row('g1', 'ana', 'ana', [['2026-03', maskOf(1, 31)]]),
        row('g1', 'ana', 'ana', [['2026-04', maskOf(2)]]),
        row('g2', 'bia', 'bia', [['2026-03', maskOf(15)]]),
      ],
      epochDay('2026-03-02'),
      epochDay('2026-04-30')
    );
    expect(members.map((m) => [m.groupJid, m.participantId, [...m.days].map(dayText)])).toEqual([
      ['g1', 'ana', ['2026-03-31', '2026-04-02']],
      ['g2', 'bia', ['2026-03-15']],
    ]);
  });

  it('counts DAU, WAU and MAU per day, a person once per window', () => {
    const people = personDays(
      readPresence(
        [row('g1', 'ana', 'ana', [['2026-05', maskOf(1, 3)]]), row('g2', 'ana', 'ana', [['2026-05', maskOf(3)]])],
        epochDay('2026-01-01'),
        epochDay('2026-12-31')
      )
    );
    const days = activeMembersPerDay(people, epochDay('2026-05-01'), epochDay('2026-05-09'));
    expect(days.map((d) => [d.day.slice(8), d.dau, d.wau, d.mau])).toEqual([
      ['01', 1, 1, 1],
      ['02', 0, 1, 1],
      ['03', 1, 1, 1],
      ['04', 0, 1, 1],
      ['05', 0, 1, 1],
      ['06', 0, 1, 1],
      ['07', 0, 1, 1],
      ['08', 0, 1, 1],
      ['09', 0, 1, 1],
    ]);
    expect(days.at(-1)?.wau).toBe(1);
    expect(countActivePeople(people, epochDay('2026-05-04'), epochDay('2026-05-09'))).toBe(0);
  });

  it('gives levels by presence milestones, with a week starting in the month counted into the next', () => {
    // 2026-06-29 is a Monday: its week's days in July count for June's best week.
    const people = personDays(
      readPresence(
        [
          row('g1', 'ana', 'ana', [
            ['2026-06', maskOf(29)],
            ['2026-07', maskOf(1)],
          ]),
          row('g1', 'bia', 'bia', [['2026-07', maskOf(1, 2, 3, 4, 5, 6, 7, 8)]]),
        ],
        epochDay('2026-01-01'),
        epochDay('2026-08-31')
      )
    );
    expect(levelMonths(people, epochDay('2026-06-01'), epochDay('2026-08-31'))).toEqual([
      {
        month: '2026-06-01',
        advocates: 0,
        contributors: 0,
        participants: 1,
        explorers: 0,
        movedUp: 0,
        held: 0,
        movedDown: 0,
        new: 1,
        gone: 0,
      },
      {
        month: '2026-07-01',
        advocates: 0,
        contributors: 1,
        participants: 0,
        explorers: 1,
        movedUp: 0,
        held: 0,
        movedDown: 1,
        new: 1,
        gone: 0,
      },
      {
        month: '2026-08-01',
        advocates: 0,
        contributors: 0,
        participants: 0,
        explorers: 2,
        movedUp: 0,
        held: 1,
        movedDown: 1,
        new: 0,
        gone: 0,
      },
    ]);
  });

  it('rounds retention half away from zero and leaves weeks beyond the range unknown', () => {
    const members = readPresence(
      [row('g1', 'ana', 'ana', [['2026-06', maskOf(8)]])],
      epochDay('2026-01-01'),
      epochDay('2026-12-31')
    );
    const cohort = Array.from({ length: 160 }, (_, i) => ({
      groupJid: 'g1',
      participantId: i === 0 ? 'ana' : `p${String(i)}`,
      cohortWeek: '2026-06-01',
    }));
    const weeks = cohortMemberWeeks(members, cohort, epochDay('2026-06-01'), epochDay('2026-06-14'));
    const grid = cohortRetention(cohort, weeks, epochDay('2026-06-14'));
    // 1 of 160 is 0.00625: four decimals, half away from zero, as PostgreSQL's round(numeric, 4).
    expect(grid.map((g) => [g.weekOffset, g.activeMembers, g.retention])).toEqual([
      [0, 0, 0],
      [1, 1, 0.0063],
    ]);
    expect(cohortActiveInWeek(cohort, weeks, 1, epochDay('2026-06-14')).get('2026-06-01')).toBe(1);
    expect(cohortActiveInWeek(cohort, weeks, 4, epochDay('2026-06-14')).get('2026-06-01')).toBeNull();
  });
});
