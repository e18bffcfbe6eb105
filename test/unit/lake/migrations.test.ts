import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A lake migrated by any earlier release lists these names in `pgmigrations`; node-pg-migrate refuses to run
// when a recorded name is missing or out of order, so a rename or a reordering would strand every existing lake.
const RELEASED = [
  '1764400000000_create-event-logs',
  '1764400000001_create-projections',
  '1764400000002_index-participant-keys',
  '1764500000000_projection-precedence',
  '1764600000000_create-message-read-model',
  '1764600000001_create-engagement-views',
  '1764700000000_privacy-retention-erasure',
  '1764800000000_create-outbound-send',
  '1764900000000_send-status-webhook-secret',
  '1764940000000_drop-message-sender-index',
  '1765000000000_engagement-member-day-deltas',
  '1765100000000_engagement-rollup-at-read-time',
  '1765100000001_membership-changes-after-snapshots',
  '1765200000000_send-key-quotas',
  '1765200000001_send-templates',
  '1765200000002_send-environments',
  '1765300000000_event-log-source',
  '1765300000001_create-coverage-views',
  '1765400000000_pending-erasures',
  '1765450000001_membership-changes-from-stubs',
  '1765450000002_merged-revokes-attributed',
  '1765450000003_cohorts-with-empty-weeks',
  '1765450000004_account-lid',
  '1765450000005_identity-generation',
  '1765450000006_poll-voters-are-active',
  '1765500000000_participant-display-names',
  '1765500000001_first-response',
  '1765600000000_chat-export-messages',
  '1765650000000_reply-graph-and-unanswered',
  '1765710000000_unobserved-periods-per-account',
  '1765710000001_group-day-coverage',
  '1765720000000_access-requests',
  '1765720000001_status-webhook-disable',
];

// Kept in order after the released ones (ADR 0025).
const ENGAGEMENT_QUESTIONS = [
  '1765750000000_first-response-in-one-pass',
  '1765750000001_newcomers-levels-hours',
  '1765750000002_lid-successions',
  '1765750000003_display-names-in-views',
];

// The rollup kept as tables, exact at every read (ADR 0025, "A year's volume").
const YEAR_VOLUME = ['1765800000000_engagement-rollup-cache'];
// Erased members stay erased whatever path their events take (ADR 0027).
const ERASURE = ['1765810000000_erasure-tombstones'];
// Kept in order after the released ones (ADR 0029).
const FRESH_USER_FIXES = ['1765820000000_erased-member-display-name', '1765820000001_analyst-messages-with-exports'];
// The Idempotency-Key claims every ingest API process sees (ADR 0030).
const IDEMPOTENCY_CLAIMS = ['1765830000000_send-idempotency-claims'];
// Bounded reads at a year's volume (ADR 0025, "Bounded reads").
const BOUNDED_READS = ['1765900000000_engagement-first-message-days', '1765900000001_window-views-take-group-filters'];
// A new user's recount of the demo: one name for every pseudonym, coverage from the first observed event.
const RECOUNT_FIXES = [
  '1765950000000_erased-pseudonyms-always-named',
  '1765950000001_coverage-from-first-observed-event',
];
// A year's volume read from month rollups and kept tables (ADR 0031), then a fresh user's history import,
// coverage and backfill: coverage lists a group known only from its messages.
const YEAR_READS_AND_HISTORY_FIXES = [
  '1766000000000_engagement-month-rollups',
  '1766000000001_engagement-message-links',
  '1766000000002_views-read-one-group',
  '1766000000003_conversation-starts',
  '1766000000004_unanswered-asks-per-start',
  '1766000000010_coverage-lists-groups-known-by-messages',
];
// Reads over all groups (ADR 0032): hour months across groups, the catch-up bounded by the marked days.
const ALL_GROUP_READS = ['1766000000100_engagement-all-groups-months', '1766000000101_catch-up-bounded-by-marked-days'];
// Views of one group and one month read that group-month (ADR 0033).
const GROUP_MONTH_VIEWS = ['1766000000200_group-month-views-read-their-days'];
// Whole reports kept for a bounded delay (ADR 0034).
const KEPT_REPORTS = ['1766000000300_kept-engagement-reports'];

describe('lake/migrations', () => {
  it('keeps the id and order of every released migration, new ones only after them', () => {
    const names = readdirSync(fileURLToPath(new URL('../../../lake/migrations', import.meta.url)))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    expect(names.slice(0, RELEASED.length)).toEqual(RELEASED);
    expect(names.filter((name) => name.startsWith('17657500000'))).toEqual(ENGAGEMENT_QUESTIONS);
    expect(names.filter((name) => name.startsWith('17658000000'))).toEqual(YEAR_VOLUME);
    expect(names.filter((name) => name.startsWith('17658100000'))).toEqual(ERASURE);
    expect(names.filter((name) => name.startsWith('17658200000'))).toEqual(FRESH_USER_FIXES);
    expect(names.filter((name) => name.startsWith('17658300000'))).toEqual(IDEMPOTENCY_CLAIMS);
    expect(names.filter((name) => name.startsWith('17659000000'))).toEqual(BOUNDED_READS);
    expect(names.filter((name) => name.startsWith('17659500000'))).toEqual(RECOUNT_FIXES);
    expect(names.filter((name) => name.startsWith('17660000000'))).toEqual(YEAR_READS_AND_HISTORY_FIXES);
    expect(names.filter((name) => name.startsWith('17660000001'))).toEqual(ALL_GROUP_READS);
    expect(names.filter((name) => name.startsWith('17660000002'))).toEqual(GROUP_MONTH_VIEWS);
    expect(names.filter((name) => name.startsWith('17660000003'))).toEqual(KEPT_REPORTS);
    expect(names).toEqual([
      ...RELEASED,
      ...ENGAGEMENT_QUESTIONS,
      ...YEAR_VOLUME,
      ...ERASURE,
      ...FRESH_USER_FIXES,
      ...IDEMPOTENCY_CLAIMS,
      ...BOUNDED_READS,
      ...RECOUNT_FIXES,
      ...YEAR_READS_AND_HISTORY_FIXES,
      ...ALL_GROUP_READS,
      ...GROUP_MONTH_VIEWS,
      ...KEPT_REPORTS,
    ]);
  });
});
