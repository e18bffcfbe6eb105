import type { EngagementReport } from '../../lake/index.js';

/**
 * An engagement report with nothing in it (UTC, no period, zero totals, every list empty, coverage not recorded),
 * with `overrides` laid over it: the fixture of the report's renderers and writers.
 */
export function emptyReport(overrides: Partial<EngagementReport> = {}): EngagementReport {
  return {
    timeZone: 'UTC',
    groupJid: null,
    from: null,
    to: null,
    lurkerDays: 30,
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
    ...overrides,
  };
}
