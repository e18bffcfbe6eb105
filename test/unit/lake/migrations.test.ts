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
];

// Kept in order after the released ones (ADR 0025).
const ENGAGEMENT_QUESTIONS = ['1765750000000_first-response-in-one-pass', '1765750000001_newcomers-levels-hours'];

describe('lake/migrations', () => {
  it('keeps the id and order of every released migration, new ones only after them', () => {
    const names = readdirSync(fileURLToPath(new URL('../../../lake/migrations', import.meta.url)))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    expect(names.slice(0, RELEASED.length)).toEqual(RELEASED);
    expect(names.filter((name) => name.startsWith('17657500000'))).toEqual(ENGAGEMENT_QUESTIONS);
  });
});
