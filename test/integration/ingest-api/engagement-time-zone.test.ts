import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RebuildFailedError, UnnamedTimeZoneError } from '../../../lake/errors.js';
import { rebuildMessageReadModel } from '../../../lake/events/rebuild-messages.js';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { textMessage } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// ADR 0013: engagement days are local days in the lake's time zone (default America/Sao_Paulo,
// UTC−3 all year since 2019), changed by `wa-lake rebuild --time-zone`.
const GROUP = '120363000000000121@g.us';
const SENDER = '100000000000021@lid';
// 2026-03-10 02:30 UTC: still 2026-03-09 in São Paulo (23:30), already 2026-03-10 in UTC.
const LATE_EVENING_IN_SAO_PAULO = Date.UTC(2026, 2, 10, 2, 30) / 1000;

const fresh = useFreshLake();

const memberDays = async (): Promise<Array<{ day: string; messages: number }>> =>
  (
    await fresh.lake.pool.query<{ day: string; messages: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, messages FROM engagement_member_day_totals
        WHERE group_jid = $1 AND participant_key = $2 ORDER BY day`,
      [GROUP, SENDER]
    )
  ).rows;

describe('engagement days in the lake time zone (ADR 0013)', () => {
  it('counts a message sent at 23:30 in São Paulo on that local day, and on the UTC day after a rebuild in UTC', async () => {
    const body = textMessage({ group: GROUP, id: '3EB0TZ0000000001', sender: SENDER }, LATE_EVENING_IN_SAO_PAULO);
    await fresh.lake.store(randomUUID(), JSON.stringify(body));
    expect(await memberDays()).toEqual([{ day: '2026-03-09', messages: 1 }]);

    const client = await fresh.lake.pool.connect();
    try {
      await rebuildMessageReadModel(client, 'UTC');
    } finally {
      client.release();
    }
    expect(await memberDays()).toEqual([{ day: '2026-03-10', messages: 1 }]);

    // New messages follow the stored zone too, not only the rebuilt ones.
    const next = textMessage({ group: GROUP, id: '3EB0TZ0000000002', sender: SENDER }, LATE_EVENING_IN_SAO_PAULO + 60);
    await fresh.lake.store(randomUUID(), JSON.stringify(next));
    expect(await memberDays()).toEqual([{ day: '2026-03-10', messages: 2 }]);
  });

  it('refuses a time zone PostgreSQL does not know before replaying any event, and keeps the old numbers', async () => {
    const before = await memberDays();
    expect(before.length).toBeGreaterThan(0);
    const failure = await rebuildProjections(fresh.lake.pool, { engagementTimeZone: 'Mars/Olympus' }).then(
      () => null,
      (err: unknown) => err
    );
    expect(failure).toBeInstanceOf(RebuildFailedError);
    expect((failure as RebuildFailedError).eventsApplied).toBe(0);
    expect(String((failure as RebuildFailedError).cause)).toMatch(/time zone "Mars\/Olympus" not recognized/);
    expect(await memberDays()).toEqual(before);
  });

  it('refuses a UTC offset such as +05:00, which PostgreSQL would read as UTC−5, and keeps the stored zone', async () => {
    const before = await memberDays();
    const failure = await rebuildProjections(fresh.lake.pool, { engagementTimeZone: '+05:00' }).then(
      () => null,
      (err: unknown) => err
    );
    expect(failure).toBeInstanceOf(RebuildFailedError);
    expect((failure as RebuildFailedError).eventsApplied).toBe(0);
    expect((failure as RebuildFailedError).cause).toBeInstanceOf(UnnamedTimeZoneError);
    expect(String((failure as RebuildFailedError).cause)).toMatch(/"\+05:00" is not an IANA time zone name/);
    expect((await fresh.lake.pool.query('SELECT wa_engagement_time_zone() AS tz')).rows).toEqual([{ tz: 'UTC' }]);
    expect(await memberDays()).toEqual(before);
  });
});
