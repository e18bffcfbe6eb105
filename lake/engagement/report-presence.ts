import type { LevelMonth } from './report-questions-queries.js';

/**
 * The report's presence figures (ADR 0031): which local days each member was active on, read once from the
 * member-month masks (`engagement_member_month_parts`), and the figures that count people per day, week or month
 * from them. Each function restates the rule of the view named in its doc (docs/engagement.md); the report tests
 * compare them number for number. Days are epoch days (days since 1970-01-01) of local dates.
 */

const DAY_MS = 86_400_000;

/** The epoch day of a `YYYY-MM-DD` date. */
export const epochDay = (day: string): number => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
/** The `YYYY-MM-DD` date of an epoch day. */
export const dayText = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** The epoch day of the first of the month of `day`, `months` months later. */
const monthStart = (day: number, months = 0): number => {
  const date = new Date(day * DAY_MS);
  return Math.round(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1) / DAY_MS);
};
/** The Monday of the week of `day` (1970-01-01 was a Thursday). */
const weekStart = (day: number): number => day - ((day + 3) % 7);

/** One row of the presence query: a member of a group and the months it was active in. */
export interface PresenceRow {
  groupJid: string;
  participantId: string;
  personKey: string;
  /** `month:mask` pairs, comma-separated: month as the epoch day of its 1st, mask bit 0 = the 1st of the month. */
  months: string;
}

/** The active days of one member of one group, sorted, within the span the presence was read for. */
export interface MemberPresence {
  groupJid: string;
  participantId: string;
  personKey: string;
  days: Int32Array;
  /** The same days as month masks: month start (epoch day) → mask, bit 0 = the 1st. */
  months: ReadonlyMap<number, number>;
}

/** The bits of the days of `first`..`last` in the month starting on epoch day `start` (bit 0 = the 1st). */
const rangeMask = (start: number, first: number, last: number): number => {
  const low = Math.max(first - start, 0);
  const high = Math.min(last - start, 30);
  return low > high ? 0 : (2 ** (high - low + 1) - 1) * 2 ** low;
};

/** OR-s the `month:mask` pairs of `text` (month as the epoch day of its 1st) into `months`, kept to `first`..`last`. */
function addMonths(months: Map<number, number>, text: string, first: number, last: number): void {
  let at = 0;
  while (at < text.length) {
    const colon = text.indexOf(':', at);
    let comma = text.indexOf(',', colon);
    if (comma < 0) comma = text.length;
    const start = Number(text.slice(at, colon));
    const mask = Number(text.slice(colon + 1, comma)) & rangeMask(start, first, last);
    if (mask !== 0) months.set(start, (months.get(start) ?? 0) | mask);
    at = comma + 1;
  }
}

/** The days of month masks, sorted: months in order, bits in order. */
function daysOfMonths(months: ReadonlyMap<number, number>): Int32Array {
  const starts = [...months.keys()].sort((a, b) => a - b);
  const days: number[] = [];
  for (const start of starts) {
    let mask = months.get(start) ?? 0;
    for (let bit = 0; mask !== 0; bit += 1, mask >>>= 1) if ((mask & 1) !== 0) days.push(start + bit);
  }
  return Int32Array.from(days);
}

/** Turns the presence rows into sorted day lists, keeping the days in `first`..`last` (epoch days). */
export function readPresence(rows: readonly PresenceRow[], first: number, last: number): MemberPresence[] {
  const members = new Map<string, { row: PresenceRow; months: Map<number, number> }>();
  for (const row of rows) {
    const id = `${row.groupJid}\u0000${row.participantId}\u0000${row.personKey}`;
    let member = members.get(id);
    if (member === undefined) members.set(id, (member = { row, months: new Map<number, number>() }));
    addMonths(member.months, row.months, first, last);
  }
  return [...members.values()]
    .filter((member) => member.months.size > 0)
    .map(({ row, months }) => ({
      groupJid: row.groupJid,
      participantId: row.participantId,
      personKey: row.personKey,
      days: daysOfMonths(months),
      months,
    }));
}

/** Each person's active days across the members given (any group), sorted. */
export function personDays(members: readonly MemberPresence[]): Map<string, Int32Array> {
  const months = new Map<string, Map<number, number>>();
  for (const member of members) {
    let person = months.get(member.personKey);
    if (person === undefined) months.set(member.personKey, (person = new Map<number, number>()));
    for (const [start, mask] of member.months) person.set(start, (person.get(start) ?? 0) | mask);
  }
  return new Map([...months].map(([person, masks]) => [person, daysOfMonths(masks)]));
}

/** Whether a sorted day list has a day in `from`..`to` (binary search). */
function hasDayIn(days: Int32Array, from: number, to: number): boolean {
  let low = 0;
  let high = days.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((days[middle] ?? 0) < from) low = middle + 1;
    else high = middle;
  }
  return low < days.length && (days[low] ?? 0) <= to;
}

/** The people active on some day of `from`..`to` (`engagement_period_totals`' active members). */
export function countActivePeople(people: ReadonlyMap<string, Int32Array>, from: number, to: number): number {
  let count = 0;
  for (const days of people.values()) if (hasDayIn(days, from, to)) count += 1;
  return count;
}

/** Per group, the people active in it on some day of `from`..`to`. */
export function countActivePeopleByGroup(
  members: readonly MemberPresence[],
  from: number,
  to: number
): Map<string, number> {
  const people = new Map<string, Set<string>>();
  for (const member of members) {
    if (!hasDayIn(member.days, from, to)) continue;
    const set = people.get(member.groupJid) ?? new Set<string>();
    people.set(member.groupJid, set);
    set.add(member.personKey);
  }
  return new Map([...people].map(([group, set]) => [group, set.size]));
}

/**
 * DAU, WAU and MAU per day of `from`..`to` (`engagement_active_members`): the people active on the day, on one of
 * its last 7 days, on one of its last 30 days. Only days from `from - 29` count, as in the view of the range.
 */
export function activeMembersPerDay(
  people: ReadonlyMap<string, Int32Array>,
  from: number,
  to: number
): { day: string; dau: number; wau: number; mau: number }[] {
  const first = from - 29;
  const length = to - first + 2;
  const changes = [new Int32Array(length), new Int32Array(length), new Int32Array(length)];
  const windows = [1, 7, 30];
  for (const days of people.values()) {
    let index = days.findIndex((day) => day >= first);
    if (index < 0) continue;
    for (; index < days.length && (days[index] ?? 0) <= to; index += 1) {
      const day = days[index] ?? 0;
      const next = days[index + 1] ?? Number.MAX_SAFE_INTEGER;
      for (let w = 0; w < 3; w += 1) {
        const change = changes[w] as Int32Array;
        change[day - first] = (change[day - first] ?? 0) + 1;
        const end = Math.min(day + (windows[w] ?? 1), next) - first;
        if (end < length) change[end] = (change[end] ?? 0) - 1;
      }
    }
  }
  const result: { day: string; dau: number; wau: number; mau: number }[] = [];
  const running = [0, 0, 0];
  for (let offset = 0; offset <= to - first; offset += 1) {
    for (let w = 0; w < 3; w += 1) running[w] = (running[w] ?? 0) + ((changes[w] as Int32Array)[offset] ?? 0);
    if (first + offset >= from)
      result.push({ day: dayText(first + offset), dau: running[0] ?? 0, wau: running[1] ?? 0, mau: running[2] ?? 0 });
  }
  return result;
}

/** `monthStart` of every day (and Monday) the people's days span, looked up instead of computed per day. */
function monthStartLookup(people: ReadonlyMap<string, Int32Array>): (day: number) => number {
  let [low, high] = [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];
  for (const days of people.values()) {
    if (days.length === 0) continue;
    low = Math.min(low, weekStart(days[0] ?? 0));
    high = Math.max(high, days[days.length - 1] ?? 0);
  }
  if (low > high) return (day) => monthStart(day);
  const starts = new Int32Array(high - low + 1);
  for (let month = monthStart(low); month <= high; month = monthStart(month, 1))
    starts.fill(month, Math.max(month - low, 0), Math.min(monthStart(month, 1) - low, starts.length));
  return (day) => (day >= low && day <= high ? (starts[day - low] ?? 0) : monthStart(day));
}

/**
 * A person's level per month from `firstMonth` on (`engagement_member_levels`; 1 advocate … 4 explorer): active on
 * 30 days of the month and the two before it, on 7 days of the month, on 2 days of one Monday week starting in the
 * month, or at all in the three months. `days` are the person's days from three months before `firstMonth` on.
 */
function levelsOf(days: Int32Array, months: readonly number[], monthOf: (day: number) => number): Map<number, number> {
  // Days are sorted, so a month's days and a week's days are runs: counted without a map per day.
  const monthDays = new Map<number, number>();
  const bestWeek = new Map<number, number>();
  let [month, monthCount, week, weekCount] = [-1, 0, -1, 0];
  const closeWeek = (): void => {
    if (weekCount === 0) return;
    const weekMonth = monthOf(week);
    if (weekCount > (bestWeek.get(weekMonth) ?? 0)) bestWeek.set(weekMonth, weekCount);
  };
  for (const day of days) {
    const dayMonth = monthOf(day);
    if (dayMonth !== month) {
      if (monthCount > 0) monthDays.set(month, monthCount);
      [month, monthCount] = [dayMonth, 0];
    }
    monthCount += 1;
    const dayWeek = weekStart(day);
    if (dayWeek !== week) {
      closeWeek();
      [week, weekCount] = [dayWeek, 0];
    }
    weekCount += 1;
  }
  if (monthCount > 0) monthDays.set(month, monthCount);
  closeWeek();
  const levels = new Map<number, number>();
  // `months` starts two months before the first month a level is asked for.
  for (let index = 2; index < months.length; index += 1) {
    const current = months[index] ?? 0;
    const inMonth = monthDays.get(current) ?? 0;
    const quarter =
      inMonth + (monthDays.get(months[index - 1] ?? 0) ?? 0) + (monthDays.get(months[index - 2] ?? 0) ?? 0);
    if (quarter === 0) continue;
    const level = quarter >= 30 ? 1 : inMonth >= 7 ? 2 : (bestWeek.get(current) ?? 0) >= 2 ? 3 : 4;
    levels.set(current, level);
  }
  return levels;
}

/**
 * Members per level per month of `from`..`to`, and how they moved since the month before (`engagement_level_monthly`,
 * over the people given: days from three months before the first month up to `to`).
 */
export function levelMonths(people: ReadonlyMap<string, Int32Array>, from: number, to: number): LevelMonth[] {
  const firstMonth = monthStart(from);
  const lastMonth = monthStart(to);
  const months = new Map<number, LevelMonth>();
  for (let month = firstMonth; month <= lastMonth; month = monthStart(month, 1)) {
    months.set(month, {
      month: dayText(month),
      advocates: 0,
      contributors: 0,
      participants: 0,
      explorers: 0,
      movedUp: 0,
      held: 0,
      movedDown: 0,
      new: 0,
      gone: 0,
    });
  }
  const levelKeys = ['advocates', 'contributors', 'participants', 'explorers'] as const;
  const monthOf = monthStartLookup(people);
  const levelMonthList: number[] = [];
  for (let month = monthStart(firstMonth, -3); month <= lastMonth; month = monthStart(month, 1))
    levelMonthList.push(month);
  const monthRows = [...months].map(([month, counts]) => [month, counts, monthStart(month, -1)] as const);
  for (const days of people.values()) {
    const levels = levelsOf(days, levelMonthList, monthOf);
    for (const [month, counts, previous] of monthRows) {
      const toLevel = levels.get(month);
      const fromLevel = levels.get(previous);
      if (toLevel === undefined && fromLevel === undefined) continue;
      if (toLevel !== undefined) counts[levelKeys[toLevel - 1] as (typeof levelKeys)[number]] += 1;
      if (fromLevel === undefined) counts.new += 1;
      else if (toLevel === undefined) counts.gone += 1;
      else if (toLevel < fromLevel) counts.movedUp += 1;
      else if (toLevel > fromLevel) counts.movedDown += 1;
      else counts.held += 1;
    }
  }
  return [...months.values()].filter(
    (month) => month.advocates + month.contributors + month.participants + month.explorers + month.gone > 0
  );
}

/** A cohort member of the report: first joined a group in the range. */
export interface CohortMember {
  groupJid: string;
  participantId: string;
  /** The Monday of the local join week (`YYYY-MM-DD`). */
  cohortWeek: string;
}

/** The Monday weeks (epoch days) each cohort member was active in, counting the days of `from`..`to` only. */
export function cohortMemberWeeks(
  members: readonly MemberPresence[],
  cohort: readonly CohortMember[],
  from: number,
  to: number
): Map<string, Set<number>> {
  const wanted = new Set(cohort.map((member) => `${member.groupJid}\u0000${member.participantId}`));
  const weeks = new Map<string, Set<number>>();
  for (const member of members) {
    const id = `${member.groupJid}\u0000${member.participantId}`;
    if (!wanted.has(id)) continue;
    const set = weeks.get(id) ?? new Set<number>();
    weeks.set(id, set);
    // Sorted days: a week repeats only in a run, so each week is added once.
    let last = Number.NaN;
    for (const day of member.days) {
      if (day < from || day > to) continue;
      const week = weekStart(day);
      if (week !== last) set.add((last = week));
    }
  }
  return weeks;
}

/**
 * The retention grid (`engagement_cohort_retention` over the range): per cohort week, every week from it to the week
 * of `to`, with the cohort's members active in it; retention rounded to 4 decimals, half away from zero.
 */
export function cohortRetention(
  cohort: readonly CohortMember[],
  weeks: ReadonlyMap<string, ReadonlySet<number>>,
  to: number
): { cohortWeek: string; weekOffset: number; cohortSize: number; activeMembers: number; retention: number }[] {
  const cohorts = new Map<number, CohortMember[]>();
  for (const member of cohort) {
    const week = epochDay(member.cohortWeek);
    const members = cohorts.get(week);
    if (members === undefined) cohorts.set(week, [member]);
    else members.push(member);
  }
  const lastWeek = weekStart(to);
  const rows = [];
  for (const [cohortWeek, members] of [...cohorts].sort(([a], [b]) => a - b)) {
    // Each member's active weeks counted into the cohort's offsets, instead of asking every member about every week.
    const active = new Int32Array(Math.max(Math.floor((lastWeek - cohortWeek) / 7) + 1, 0));
    for (const m of members)
      for (const week of weeks.get(`${m.groupJid}\u0000${m.participantId}`) ?? [])
        if (week >= cohortWeek && week <= lastWeek) {
          const offset = (week - cohortWeek) / 7;
          active[offset] = (active[offset] ?? 0) + 1;
        }
    for (let week = cohortWeek; week <= lastWeek; week += 7) {
      const activeMembers = active[(week - cohortWeek) / 7] ?? 0;
      rows.push({
        cohortWeek: dayText(cohortWeek),
        weekOffset: (week - cohortWeek) / 7,
        cohortSize: members.length,
        activeMembers,
        // round(active / size, 4) of numeric: half away from zero, in integers.
        retention: Math.floor((2 * activeMembers * 10_000 + members.length) / (2 * members.length)) / 10_000,
      });
    }
  }
  return rows;
}

/** Per cohort week, its members active in the week `offsetWeeks` after it; null while that week is after `to`'s. */
export function cohortActiveInWeek(
  cohort: readonly CohortMember[],
  weeks: ReadonlyMap<string, ReadonlySet<number>>,
  offsetWeeks: number,
  to: number
): Map<string, number | null> {
  const counts = new Map<string, number | null>();
  for (const member of cohort) {
    const target = epochDay(member.cohortWeek) + 7 * offsetWeeks;
    if (target > weekStart(to)) {
      counts.set(member.cohortWeek, null);
      continue;
    }
    const isActive = weeks.get(`${member.groupJid}\u0000${member.participantId}`)?.has(target) === true;
    counts.set(member.cohortWeek, (counts.get(member.cohortWeek) ?? 0) + (isActive ? 1 : 0));
  }
  return counts;
}
