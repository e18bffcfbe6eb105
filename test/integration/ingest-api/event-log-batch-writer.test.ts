import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { DatabaseUnavailableError } from '../../../ingest-api/db/errors.js';
import { EventLogBatchWriter } from '../../../ingest-api/db/event-log-batch-writer.js';
import type { EventLogRow } from '../../../ingest-api/db/event-log-rows.js';
import { createPool } from '../../../ingest-api/db/pool.js';
import { createMigratedDatabase, dropDatabase } from './lake-databases.js';

let databaseUrl: string;
let pool: pg.Pool;

beforeAll(async () => {
  databaseUrl = await createMigratedDatabase(inject('databaseUrl'));
  pool = createPool(databaseUrl, { max: 8 });
});
afterAll(async () => {
  await pool.end();
  await dropDatabase(databaseUrl);
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
    const url = new URL(databaseUrl);
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
});
