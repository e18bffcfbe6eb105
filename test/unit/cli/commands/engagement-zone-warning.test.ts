import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { engagementZoneWarning } from '../../../../cli/commands/engagement-zone-warning.js';

// A stand-in for the lake: the stored zone is all the warning reads.
const lakeStoring = (tz: string): pg.Pool =>
  ({ query: () => Promise.resolve({ rows: [{ tz }] }) }) as unknown as pg.Pool;

describe('engagementZoneWarning', () => {
  it('says a zone that is not an IANA zone is invalid instead of advising a rebuild', async () => {
    const warning = await engagementZoneWarning(lakeStoring('UTC'), { ENGAGEMENT_TIME_ZONE: 'Mars/Base' });
    expect(warning).toContain('ENGAGEMENT_TIME_ZONE is Mars/Base, which is not a valid IANA time zone');
    expect(warning).not.toContain('run `wa-lake rebuild`');
  });

  it('advises a rebuild for a valid zone the lake does not store', async () => {
    const warning = await engagementZoneWarning(lakeStoring('UTC'), { ENGAGEMENT_TIME_ZONE: 'America/Sao_Paulo' });
    expect(warning).toContain('run `wa-lake rebuild` to store America/Sao_Paulo');
  });
});
