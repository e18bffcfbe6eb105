import { emptyEngagementReport, type EngagementReport } from '../../lake/index.js';

/**
 * The lake's empty engagement report for UTC, no group and no period (`emptyEngagementReport`), with `overrides`
 * laid over it: the fixture of the report's renderers and writers.
 */
export function emptyReport(overrides: Partial<EngagementReport> = {}): EngagementReport {
  return {
    ...emptyEngagementReport({ timeZone: 'UTC', groupJid: null, from: null, to: null, lurkerDays: 30 }),
    ...overrides,
  };
}
