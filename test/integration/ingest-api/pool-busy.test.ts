import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  messageBody,
  postSigned,
  startTestIngestServer,
  type TestIngestServer,
} from '../../helpers/ingest-test-server.js';

// One pooled connection, held by the test: every request waits for the connection timeout and gets
// pg-pool's checkout timeout while PostgreSQL itself is fine.
let server: TestIngestServer;
let held: pg.PoolClient | undefined;
beforeAll(async () => {
  server = await startTestIngestServer(inject('databaseUrl'), { poolMax: 1, connectionTimeoutMs: 200 });
});
afterEach(() => {
  held?.release();
  held = undefined;
});
afterAll(async () => {
  await server.close();
});

async function countRows(client: pg.ClientBase | pg.Pool, eventId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE event_id = $1',
    [eventId]
  );
  return rows[0]?.n ?? -1;
}

const GROUP_JID = '120363000000000077@g.us';

describe('ingest API while every pooled connection is busy', () => {
  it.each([
    ['a message (group-commit batch, pool.query)', () => messageBody()],
    [
      'a group update (own transaction, pool.connect)',
      () => messageBody({ type: 'groups.update', chat_jid: GROUP_JID, payload: { id: GROUP_JID, subject: 'busy' } }),
    ],
  ])(
    'answers %s with 503 WA_ERR_DATABASE_BUSY and Retry-After, stores nothing, then 201 once released',
    async (_name, makeBody) => {
      held = await server.pool.connect();
      const eventId = randomUUID();
      const body = makeBody();

      const busy = await postSigned(server.url, body, { eventId });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(busy.json).toEqual({ error: 'database busy, retry later', code: 'WA_ERR_DATABASE_BUSY' });
      expect(await countRows(held, eventId)).toBe(0);

      held.release();
      held = undefined;
      const back = await postSigned(server.url, body, { eventId });
      expect(back.status).toBe(201);
      expect(await countRows(server.pool, eventId)).toBe(1);
    }
  );

  it('answers concurrent requests, batched together while they wait, each with WA_ERR_DATABASE_BUSY', async () => {
    held = await server.pool.connect();
    const answers = await Promise.all(Array.from({ length: 4 }, () => postSigned(server.url, messageBody())));
    expect(answers.map((answer) => [answer.status, answer.json['code']])).toEqual(
      Array.from({ length: 4 }, () => [503, 'WA_ERR_DATABASE_BUSY'])
    );
  });
});
