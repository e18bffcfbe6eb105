import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRootLogger } from '../../../common/logger.js';
import { replayCapture } from '../../../collector/capture/replay-capture.js';
import { firstCollectorEventIdName, eventIdFromName } from '../../../collector/event-id.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { openTempOutbox } from '../../fixtures/collector/temp-outbox.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const fresh = useFreshLake();

const GROUP = '120363000000000081@g.us';
/** A group event whose key inputs differ between the collectors: the first one hashed `authorPn` and `phoneNumber`. */
const participantsUpdate = (action: string) => ({
  id: GROUP,
  author: '100000000000081@lid',
  authorPn: '5500000000081@s.whatsapp.net',
  participants: [{ id: '100000000000082@lid', phoneNumber: '5500000000082@s.whatsapp.net', admin: null }],
  action,
});

describe("backfilling the first collector's trail", () => {
  it('adds no duplicate of a row that collector stored under its own id, and stores what the lake lacks', async () => {
    // The lake already holds the first collector's row of the `add`, under the id its rules gave.
    const stored = participantsUpdate('add');
    const firstCollectorId = eventIdFromName(
      firstCollectorEventIdName({ type: 'group-participants.update', chatJid: GROUP, item: stored, selfJid: null })
    );
    const firstCollectorBody = JSON.stringify({
      type: 'group-participants.update',
      chat_jid: GROUP,
      payload: stored,
      captured_at: '2025-06-01T10:00:00.000Z',
    });
    expect(await fresh.lake.store(firstCollectorId, firstCollectorBody)).toBe('stored');

    // Its trail holds the same `add` and a `remove` the lake never got.
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-trail-'));
    const temp = openTempOutbox();
    try {
      const trail = join(dir, 'trail.ndjson');
      const line = (action: string, timestamp: number): string =>
        JSON.stringify({ timestamp, event: 'group-participants.update', data: participantsUpdate(action) });
      writeFileSync(trail, `${line('add', 1_748_772_000_000)}\n${line('remove', 1_748_772_060_000)}\n`);
      const pipeline = new EventPipeline({
        outbox: temp.outbox,
        logger: createRootLogger({ level: 'silent' }),
        getSelfJid: () => null,
        withFirstCollectorEventIds: true,
      });
      const summary = await replayCapture({ path: trail, pipeline });
      expect(summary.inserted).toBe(2);
      const [addId, removeId] = [...summary.eventIds];
      expect(addId).not.toBe(firstCollectorId);
      // Delivered as the worker would: the outbox body, under the outbox event_id.
      const statuses: string[] = [];
      for (const eventId of [addId, removeId]) {
        const row = temp.outbox.get(eventId ?? '');
        if (!row) throw new Error('missing outbox row');
        expect(JSON.parse(row.body)).toHaveProperty('legacy_event_id');
        statuses.push(await fresh.lake.store(row.eventId, row.body));
      }
      expect(statuses).toEqual(['duplicate', 'stored']);
      const { rows } = await fresh.lake.pool.query<{ action: string }>(
        `SELECT payload->>'action' AS action FROM whatsapp_event_logs WHERE chat_jid = $1 ORDER BY payload->>'action'`,
        [GROUP]
      );
      expect(rows).toEqual([{ action: 'add' }, { action: 'remove' }]);
      // A second backfill adds nothing either.
      for (const eventId of [addId, removeId]) {
        const row = temp.outbox.get(eventId ?? '');
        expect(await fresh.lake.store(row?.eventId ?? randomUUID(), row?.body ?? '{}')).toBe('duplicate');
      }
    } finally {
      temp.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
