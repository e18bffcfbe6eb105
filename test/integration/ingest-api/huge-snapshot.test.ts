import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// ADR 0014 decision 8: a groups.metadata listing 60,000 participants exhausted PostgreSQL's shared lock table
// (failing other transactions too) and the group was never projected; it is now refused before any lock, with
// the reason recorded, and everything else keeps projecting.
const fresh = useFreshLake();

const metadata = (group: string, count: number): string =>
  JSON.stringify({
    type: 'groups.metadata',
    chat_jid: group,
    captured_at: new Date().toISOString(),
    payload: {
      id: group,
      subject: 'Huge group',
      size: count,
      participants: Array.from({ length: count }, (_, index) => ({
        id: `${String(10_000_000_000_000 + index)}@lid`,
        phoneNumber: `${String(5_511_900_000_000 + index)}@s.whatsapp.net`,
        admin: null,
      })),
    },
  });

describe('a snapshot with more participants than PostgreSQL can lock at once', () => {
  it('is stored, refused by the projections with its reason recorded, and blocks nothing else', async () => {
    const huge = `120363${String(Date.now()).slice(-12)}@g.us`;
    const small = `120364${String(Date.now()).slice(-12)}@g.us`;
    const hugeEventId = randomUUID();
    expect(await fresh.lake.store(hugeEventId, metadata(huge, 60_000))).toBe('stored');
    expect(await fresh.lake.store(randomUUID(), metadata(small, 3))).toBe('stored');

    const { rows: errors } = await fresh.lake.pool.query<{ error_name: string; message: string }>(
      'SELECT error_name, message FROM whatsapp_projection_errors WHERE event_id = $1',
      [hugeEventId]
    );
    expect(errors).toEqual([
      expect.objectContaining({
        error_name: 'ProjectionTooLargeError',
        message: expect.stringMatching(/names 120001 participant keys .*raise max_locks_per_transaction/) as string,
      }),
    ]);
    const members = async (group: string): Promise<number> =>
      (await fresh.lake.pool.query('SELECT 1 FROM whatsapp_group_memberships WHERE group_jid = $1', [group]))
        .rowCount ?? 0;
    expect(await members(huge)).toBe(0);
    expect(await members(small)).toBe(3);

    // A rebuild meets the same row, records it again and still finishes.
    const rebuilt = await rebuildProjections(fresh.lake.pool, { engagementTimeZone: 'UTC' });
    expect(rebuilt.events).toBeGreaterThanOrEqual(2);
    expect(await members(small)).toBe(3);
  }, 180_000);
});
