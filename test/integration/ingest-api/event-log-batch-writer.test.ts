import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { DatabaseUnavailableError } from '../../../lake/errors.js';
import { EventLogBatchWriter } from '../../../lake/events/event-log-batch-writer.js';
import type { MessageProjectionItem } from '../../../lake/events/message-projection-item.js';
import type { EventLogRow } from '../../../lake/events/event-log-rows.js';
import { createPool } from '../../../lake/pool.js';
import type { ParticipantRef } from '../../../lake/projections/participant-ref.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const fresh = useFreshLake();
// The file's own pool, as before (max 8, the pool's default logger); registered after useFreshLake, so
// (vitest runs after-hooks as a stack) it ends before the database is dropped.
let pool: pg.Pool;
beforeAll(() => {
  pool = createPool(fresh.url, { max: 8 });
});
afterAll(async () => {
  await pool.end();
});

function row(overrides: Partial<EventLogRow> = {}): EventLogRow {
  const eventId = overrides.eventId ?? randomUUID();
  return {
    id: uuidv7(),
    eventId,
    type: 'messages.upsert',
    chatJid: '120363000000000001@g.us',
    bodyText: JSON.stringify({ type: 'messages.upsert', payload: { key: { id: eventId }, text: 'héllo 😀' } }),
    receivedAt: new Date('2030-01-01T00:00:00.000Z'),
    capturedAt: new Date('2029-12-31T23:59:59.000Z'),
    upsertType: 'notify',
    occurredAt: null,
    isSanitized: false,
    ...overrides,
  };
}

async function storedRows(eventIds: readonly string[]): Promise<Array<Record<string, unknown>>> {
  const { rows } = await pool.query<Record<string, unknown>>(
    `SELECT event_id, type, chat_jid, payload, received_at, captured_at, upsert_type, occurred_at, sanitized
     FROM whatsapp_event_logs WHERE event_id = ANY($1::uuid[]) ORDER BY event_id`,
    [eventIds]
  );
  return rows;
}

/** A writer whose batches are recorded; one batch in flight, so concurrent inserts must queue. */
function recordingWriter(maxConcurrentBatches = 1): { writer: EventLogBatchWriter; batches: number[] } {
  const batches: number[] = [];
  const writer = new EventLogBatchWriter(pool, { maxConcurrentBatches }, (rows) => batches.push(rows));
  return { writer, batches };
}

describe('EventLogBatchWriter (group commit of raw rows)', () => {
  it('stores every column of a row, with the payload taken from the body', async () => {
    const { writer } = recordingWriter();
    const input = row({ occurredAt: new Date('2029-06-01T12:00:00.000Z'), isSanitized: true, chatJid: null });
    expect(await writer.insert(input)).toBe('stored');
    expect(await storedRows([input.eventId])).toEqual([
      {
        event_id: input.eventId,
        type: 'messages.upsert',
        chat_jid: null,
        payload: { key: { id: input.eventId }, text: 'héllo 😀' },
        received_at: input.receivedAt,
        captured_at: input.capturedAt,
        upsert_type: 'notify',
        occurred_at: input.occurredAt,
        sanitized: true,
      },
    ]);
  });

  it('writes concurrent rows in fewer statements than rows, each resolving only once committed', async () => {
    const { writer, batches } = recordingWriter();
    const rows = Array.from({ length: 40 }, () => row());
    const outcomes = await Promise.all(rows.map((r) => writer.insert(r)));
    expect(outcomes).toEqual(rows.map(() => 'stored'));
    expect(await storedRows(rows.map((r) => r.eventId))).toHaveLength(40);
    expect(batches.reduce((sum, n) => sum + n, 0)).toBe(40);
    // The first row goes alone (nothing waits yet); the other 39 queue behind it and share statements.
    expect(batches.length).toBeLessThan(40);
    expect(Math.max(...batches)).toBeGreaterThan(1);
  });

  it('keeps numbers exactly as the body text has them', async () => {
    const { writer } = recordingWriter();
    const input = row({
      bodyText: '{"type":"x","payload":{"big":12345678901234567890123,"dec":0.10000000000000000555}}',
    });
    await writer.insert(input);
    const { rows } = await pool.query<{ big: string; dec: string }>(
      `SELECT payload->>'big' AS big, payload->>'dec' AS dec FROM whatsapp_event_logs WHERE event_id = $1`,
      [input.eventId]
    );
    expect(rows[0]).toEqual({ big: '12345678901234567890123', dec: '0.10000000000000000555' });
  });

  it('answers duplicate for an id already stored and for a repeat within one batch, storing one row', async () => {
    const { writer } = recordingWriter();
    const first = row();
    expect(await writer.insert(first)).toBe('stored');
    const repeated = randomUUID();
    // A blocker keeps the one batch slot busy so the next three rows share a statement.
    const outcomes = await Promise.all([
      writer.insert(row()),
      writer.insert({ ...row(), eventId: first.eventId }),
      writer.insert(row({ eventId: repeated })),
      writer.insert(row({ eventId: repeated })),
    ]);
    expect(outcomes.slice(1, 2)).toEqual(['duplicate']);
    expect(outcomes.slice(2).sort()).toEqual(['duplicate', 'stored']);
    expect(await storedRows([first.eventId, repeated])).toHaveLength(2);
  });

  it('fails only the row PostgreSQL refuses; the rest of its batch is stored', async () => {
    const { writer, batches } = recordingWriter();
    // numeric holds at most 131072 digits before the point: jsonb refuses this number (SQLSTATE 22003).
    const refused = row({ bodyText: '{"type":"x","payload":{"n":1e200000}}' });
    const good = Array.from({ length: 5 }, () => row());
    const settled = await Promise.allSettled([
      writer.insert(row()),
      ...good.map((r) => writer.insert(r)),
      writer.insert(refused),
    ]);
    const failure = settled.at(-1);
    expect(failure?.status).toBe('rejected');
    const reason: unknown = failure?.status === 'rejected' ? failure.reason : undefined;
    expect(reason).toBeInstanceOf(pg.DatabaseError);
    expect((reason as pg.DatabaseError).code).toBe('22003');
    expect(settled.slice(0, -1).map((s) => s.status)).toEqual(Array.from({ length: 6 }, () => 'fulfilled'));
    expect(await storedRows(good.map((r) => r.eventId))).toHaveLength(5);
    expect(await storedRows([refused.eventId])).toEqual([]);
    expect(batches).toContain(1);
  });

  it('rejects every row with DatabaseUnavailableError when PostgreSQL cannot be reached', async () => {
    const url = new URL(fresh.url);
    url.port = String(await findFreePort());
    const downPool = createPool(url.toString(), { max: 2 });
    try {
      const writer = new EventLogBatchWriter(downPool, { maxConcurrentBatches: 1 });
      const settled = await Promise.allSettled([writer.insert(row()), writer.insert(row()), writer.insert(row())]);
      for (const outcome of settled) {
        expect(outcome.status).toBe('rejected');
        expect(outcome.status === 'rejected' ? outcome.reason : undefined).toBeInstanceOf(DatabaseUnavailableError);
      }
    } finally {
      await downPool.end();
    }
  });

  it('rejects a row whose times cannot be encoded without touching the rows around it', async () => {
    const { writer } = recordingWriter();
    const good = row();
    await expect(writer.insert(row({ capturedAt: new Date(Number.NaN) }))).rejects.toThrow(RangeError);
    expect(await writer.insert(good)).toBe('stored');
  });

  describe('lone LIDs written by the batch statement itself', () => {
    const loneLid = (id: string): ParticipantRef => ({ participantId: id, lid: id, phoneJid: null, role: null });
    const work = (input: EventLogRow, refs: ParticipantRef[]): MessageProjectionItem => ({
      eventId: input.eventId,
      type: input.type,
      effectiveAt: input.receivedAt,
      facts: { identities: refs },
    });
    async function participants(ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
      const { rows } = await pool.query<Record<string, unknown>>(
        'SELECT id, lid, phone_jid FROM whatsapp_participants WHERE id = ANY($1::text[]) ORDER BY id',
        [ids]
      );
      return rows;
    }

    it("creates each sender's participant row with its raw row, once, and keeps a phone an alias gave it", async () => {
      const { writer, batches } = recordingWriter();
      const [a, b, owner] = [`${randomUUID()}@lid`, `${randomUUID()}@lid`, `${randomUUID()}@lid`];
      const phone = `${String(Date.now())}@s.whatsapp.net`;
      await pool.query(
        `INSERT INTO whatsapp_lid_aliases (lid, phone_jid, first_seen_at, last_seen_at) VALUES ($1, $2, now(), now())`,
        [owner, phone]
      );
      await pool.query(`INSERT INTO whatsapp_participants (id, lid, phone_jid) VALUES ($1, $1, $2)`, [owner, phone]);
      const rows = [row(), row(), row(), row()];
      const refs = [[loneLid(a)], [loneLid(b)], [loneLid(a)], [loneLid(owner)]];
      const outcomes = await Promise.all(rows.map((r, i) => writer.insert(r, work(r, refs[i] ?? []))));
      expect(outcomes).toEqual(['stored', 'stored', 'stored', 'stored']);
      expect(batches.length).toBeLessThan(4);
      expect(await storedRows(rows.map((r) => r.eventId))).toHaveLength(4);
      expect(await participants([a, b, owner])).toEqual(
        [
          { id: a, lid: a, phone_jid: null },
          { id: b, lid: b, phone_jid: null },
          { id: owner, lid: owner, phone_jid: phone },
        ].sort((x, y) => (x.id < y.id ? -1 : 1))
      );
    });

    it('gives a LID the phone it owns when the alias exists but its row does not', async () => {
      const { writer } = recordingWriter();
      const lid = `${randomUUID()}@lid`;
      const phone = `${String(Date.now() + 1)}@s.whatsapp.net`;
      await pool.query(
        `INSERT INTO whatsapp_lid_aliases (lid, phone_jid, first_seen_at, last_seen_at) VALUES ($1, $2, now(), now())`,
        [lid, phone]
      );
      const input = row();
      expect(await writer.insert(input, work(input, [loneLid(lid)]))).toBe('stored');
      expect(await participants([lid])).toEqual([{ id: lid, lid, phone_jid: phone }]);
    });

    it('stores the raw row of a sender id too long for its column and records the projection error', async () => {
      const { writer } = recordingWriter();
      const tooLong = `${'9'.repeat(300)}@lid`;
      const good = row();
      const bad = row();
      const fine = `${randomUUID()}@lid`;
      const outcomes = await Promise.all([
        writer.insert(row()),
        writer.insert(good, work(good, [loneLid(fine)])),
        writer.insert(bad, work(bad, [loneLid(tooLong)])),
      ]);
      expect(outcomes.slice(1)).toEqual(['stored', 'projection-failed']);
      expect(await storedRows([good.eventId, bad.eventId])).toHaveLength(2);
      expect(await participants([fine])).toHaveLength(1);
      const { rows: errors } = await pool.query(
        'SELECT error_code FROM whatsapp_projection_errors WHERE event_id = $1',
        [bad.eventId]
      );
      expect(errors).toEqual([{ error_code: '22001' }]);
    });

    it('still creates the participant rows of a batch in which PostgreSQL refuses one raw row', async () => {
      const { writer } = recordingWriter();
      const refused = row({ bodyText: '{"type":"x","payload":{"n":1e200000}}' });
      const good = [row(), row(), row()];
      const lids = good.map(() => `${randomUUID()}@lid`);
      const settled = await Promise.allSettled([
        writer.insert(row()),
        ...good.map((r, i) => writer.insert(r, work(r, [loneLid(lids[i] ?? '')]))),
        writer.insert(refused, work(refused, [loneLid(`${randomUUID()}@lid`)])),
      ]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      expect(await storedRows(good.map((r) => r.eventId))).toHaveLength(3);
      expect(await participants(lids)).toHaveLength(3);
    });
  });
});
