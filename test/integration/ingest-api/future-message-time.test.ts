import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { textMessage } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// architecture.md §9 (event times): a message time more than a day after the capture time is not believed; the
// read model counts the message at its capture time and the raw row keeps the time as sent.
const GROUP = '120363000000000777@g.us';
const SENDER = '100000000000701@lid';
const CAPTURED_AT = '2025-06-02T10:00:00.000Z';
const IN_2199 = Date.UTC(2199, 11, 8, 12) / 1000;
const HOUR_AFTER_CAPTURE = Date.parse(CAPTURED_AT) / 1000 + 3600;

const fresh = useFreshLake();

const sentAt = async (id: string): Promise<string | undefined> =>
  (
    await fresh.lake.pool.query<{ at: string }>(
      `SELECT to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS at FROM whatsapp_message_records
        WHERE message_id = $1`,
      [id]
    )
  ).rows[0]?.at;

describe('a message time after its capture time', () => {
  it('counts a message stamped in 2199 at its capture time, keeps the raw time, and a rebuild agrees', async () => {
    const future = {
      ...textMessage({ group: GROUP, id: '3EB0FUTURE000001', sender: SENDER }, IN_2199),
      captured_at: CAPTURED_AT,
    };
    const near = {
      ...textMessage({ group: GROUP, id: '3EB0FUTURE000002', sender: SENDER }, HOUR_AFTER_CAPTURE),
      captured_at: CAPTURED_AT,
    };
    expect(await fresh.lake.store(randomUUID(), JSON.stringify(future))).toBe('stored');
    expect(await fresh.lake.store(randomUUID(), JSON.stringify(near))).toBe('stored');

    const expected = { future: '2025-06-02T10:00:00', near: '2025-06-02T11:00:00' };
    expect({ future: await sentAt('3EB0FUTURE000001'), near: await sentAt('3EB0FUTURE000002') }).toEqual(expected);
    const raw = await fresh.lake.pool.query<{ occurred: string; stamp: string }>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS occurred, payload->>'messageTimestamp' AS stamp
         FROM whatsapp_event_logs WHERE payload->'key'->>'id' = '3EB0FUTURE000001'`
    );
    expect(raw.rows).toEqual([{ occurred: '2199-12-08', stamp: String(IN_2199) }]);

    await rebuildProjections(fresh.lake.pool);
    expect({ future: await sentAt('3EB0FUTURE000001'), near: await sentAt('3EB0FUTURE000002') }).toEqual(expected);
  });
});
