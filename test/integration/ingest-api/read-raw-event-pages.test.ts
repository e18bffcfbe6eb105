import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { readRawEventPages, type RawEvent } from '../../../lake/events/read-raw-event-pages.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const fresh = useFreshLake();

const RECEIVED_AT = new Date('2030-01-01T00:00:00Z');
const CAPTURED_AT = new Date('2029-12-31T00:00:00Z');
const OCCURRED_AT = new Date('2029-12-30T00:00:00Z');

/** Inserts raw rows of `types`, in order, straight into the table; returns their ids in insert order. */
async function insertRaw(client: pg.ClientBase, types: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, type] of types.entries()) {
    const id = uuidv7();
    ids.push(id);
    await client.query(
      `INSERT INTO whatsapp_event_logs (id, event_id, type, chat_jid, payload, received_at, captured_at, occurred_at, account_jid)
       VALUES ($1, $2, $3, '120363000000000001@g.us', '{}', $4, $5, $6, $7)`,
      [
        id,
        randomUUID(),
        type,
        RECEIVED_AT,
        index % 3 === 0 ? null : CAPTURED_AT,
        index % 3 === 1 ? OCCURRED_AT : null,
        index % 2 === 0 ? '5511999990000@s.whatsapp.net' : null,
      ]
    );
  }
  return ids;
}

async function collectPages(client: pg.ClientBase, options: Parameters<typeof readRawEventPages>[1]) {
  const pages: RawEvent[][] = [];
  for await (const page of readRawEventPages(client, options)) pages.push(page);
  return pages;
}

describe('readRawEventPages', () => {
  it('reads every raw row once, in id order, across page boundaries, and never yields an empty page', async () => {
    const client = await fresh.lake.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM whatsapp_event_logs');
      const ids = await insertRaw(client, ['messages.upsert', 'groups.update', 'messages.reaction', 'x', 'y', 'z']);

      const byTwo = await collectPages(client, { pageSize: 2 });
      expect(byTwo.map((page) => page.length)).toEqual([2, 2, 2]);
      expect(byTwo.flat().map((event) => event.id)).toEqual(ids);
      expect((await collectPages(client, { pageSize: 4 })).map((page) => page.length)).toEqual([4, 2]);
      expect(await collectPages(client, { pageSize: 2, types: ['nothing'] })).toEqual([]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('filters by type and shapes rows as projection events (event time falls back to captured, then received)', async () => {
    const client = await fresh.lake.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM whatsapp_event_logs');
      const ids = await insertRaw(client, ['messages.upsert', 'messages.upsert', 'messages.update', 'groups.update']);

      const pages = await collectPages(client, { pageSize: 1, types: ['messages.upsert', 'messages.update'] });
      expect(pages.map((page) => page.map((event) => event.id))).toEqual([[ids[0]], [ids[1]], [ids[2]]]);
      const [first, second, third] = pages.flat();
      const account = ['5511999990000@s.whatsapp.net'];
      expect(first).toMatchObject({ effectiveAt: RECEIVED_AT, hasOwnTime: false, accountJids: account });
      expect(second).toMatchObject({ effectiveAt: OCCURRED_AT, hasOwnTime: true, accountJids: [] });
      expect(third).toMatchObject({ type: 'messages.update', effectiveAt: CAPTURED_AT, hasOwnTime: false });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
