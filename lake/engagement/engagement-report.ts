import type { ReportCoverage } from './coverage-queries.js';

/** The totals of one period. */
export interface ReportTotals {
  messages: number;
  activeMembers: number;
  groups: number;
  reactions: number;
  joins: number;
  leaves: number;
}

/** One total beside the previous period of equal length (`engagement_period_totals`). */
export interface TotalComparison {
  metric: keyof ReportTotals;
  current: number;
  previous: number;
  change: number;
  /** The change in % of the previous value, one decimal, half away from zero; null when the previous is 0. */
  changePercent: number | null;
}

/** Members per level in one month, and how they moved since the month before (`engagement_level_monthly`). */
export interface LevelMonth {
  month: string;
  advocates: number;
  contributors: number;
  participants: number;
  explorers: number;
  movedUp: number;
  held: number;
  movedDown: number;
  new: number;
  gone: number;
}

/** One join week's newcomers, step by step (`engagement_newcomer_funnel`, summed over the report's groups). */
export interface NewcomerCohort {
  cohortWeek: string;
  joined: number;
  firstMessage: number;
  answeredWithin24h: number;
  /** Null while week 4 after the join week lies beyond the report's last day. */
  activeWeek4: number | null;
  activeWeek12: number | null;
}

/** Messages in one local hour of one ISO weekday (1 = Monday), summed over the range (`engagement_activity_hours`). */
export interface ActivityHour {
  weekday: number;
  hour: number;
  messages: number;
}

/** What `wa-lake report` covers. Dates are local days (`YYYY-MM-DD`) in the lake's time zone. */
export interface EngagementReportOptions {
  groupJid: string | null;
  /** First day; null = the first day with activity. */
  from: string | null;
  /** Last day; null = the last day with activity. */
  to: string | null;
  /** A member with no activity in this many days up to `to` is a lurker. */
  lurkerDays: number;
  /** How many members the top list shows. */
  topMembers: number;
}

/** Every number of the report; the HTML, JSON and CSV outputs are views of it. */
export interface EngagementReport {
  timeZone: string;
  groupJid: string | null;
  from: string | null;
  to: string | null;
  lurkerDays: number;
  /**
   * Set when an open end of the range was shortened to fit MAX_REPORT_DAYS (docs/engagement.md "Report range"): says
   * which days the activity spans and which this report covers. Null when the range is the asked or defaulted one.
   */
  rangeNote: string | null;
  totals: ReportTotals;
  /** The range of equal length just before this one, and its totals (ADR 0025); null without a range. */
  previousPeriod: { from: string; to: string; totals: ReportTotals } | null;
  /** Each total beside the previous period's, with the change (`engagement_period_totals`). */
  totalsComparison: TotalComparison[];
  groups: { groupJid: string; subject: string | null; messages: number; activeMembers: number }[];
  messagesPerDay: { day: string; groupJid: string; messages: number }[];
  activeMembers: { day: string; dau: number; wau: number; mau: number }[];
  /** One row per person (a linked member id joins its participants into one person). */
  topMembers: {
    /**
     * The person's representative participant (LID-first key): the one a LID succession is named by, else the first
     * of `participantIds`. One id, whatever links the person's participants.
     */
    participantId: string;
    /** Every participant counted for the person, sorted: several when a member id or a LID succession links them. */
    participantIds: string[];
    memberId: string | null;
    /**
     * What the report shows (ADR 0020): the member's name, else the latest push name, else the business name of
     * the participant with the most messages, else its phone number (`+5511…`), else the participant id.
     */
    displayName: string;
    /**
     * Whether `displayName` shows a phone number, masked by the HTML report and the dashboard: the number itself (no
     * name known) or a name that is one (`isPhoneLikeName`, common/phone-like-name.ts).
     */
    displayNameIsPhone: boolean;
    messages: number;
    replies: number;
    reactionsGiven: number;
  }[];
  joinsLeaves: { day: string; joins: number; leaves: number }[];
  cohorts: { cohortWeek: string; weekOffset: number; cohortSize: number; activeMembers: number; retention: number }[];
  lurkers: { groupJid: string; members: number; lurkers: number }[];
  /** The days of the range whose messages come from chat exports: days the lake did not observe (ADR 0023). */
  exportDays: { day: string; groupJid: string; messages: number }[];
  /** How much of each day the collectors observed the report's groups (`--group`, else those with activity). */
  coverage: ReportCoverage;
  /** Members per Orbit-style level per month of the range and how they moved (docs/engagement.md "Levels"). */
  levels: LevelMonth[];
  /** Newcomers of each join week of the range, step by step (docs/engagement.md "Newcomers"). */
  newcomerFunnel: NewcomerCohort[];
  /** Messages per ISO weekday and local hour (docs/engagement.md "Hours"). */
  activityHours: ActivityHour[];
}

/**
 * A report with nothing counted: zero totals, every list empty, no previous period, coverage not recorded; `head`
 * names what it covers. The report query fills it in; a report's renderers are tested against it.
 */
export function emptyEngagementReport(
  head: Pick<EngagementReport, 'timeZone' | 'groupJid' | 'from' | 'to' | 'lurkerDays'>
): EngagementReport {
  return {
    ...head,
    rangeNote: null,
    totals: { messages: 0, activeMembers: 0, groups: 0, reactions: 0, joins: 0, leaves: 0 },
    groups: [],
    messagesPerDay: [],
    activeMembers: [],
    topMembers: [],
    joinsLeaves: [],
    cohorts: [],
    lurkers: [],
    exportDays: [],
    previousPeriod: null,
    totalsComparison: [],
    levels: [],
    newcomerFunnel: [],
    activityHours: [],
    coverage: { isRecorded: false, days: [] },
  };
}
