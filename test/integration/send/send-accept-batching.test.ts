import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createTestApiKey,
  postMessage,
  postMessageWithHeaders,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// The accept path caches keys and group-commits concurrent requests; these are the
// guarantees of items 1 and 2 that caching and batching could break.
const SELF = '100000000000077@lid';
let server: SendTestServer;
let groupJid: string;

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'));
  groupJid = await seedGroup(server.pool, [SELF]);
});
afterAll(async () => {
  await server.close();
});

async function countRows(idempotencyKey: string): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM outbound_messages WHERE idempotency_key = $1',
    [idempotencyKey]
  );
  return rows[0]?.n ?? -1;
}

describe('POST /api/v1/messages with a cached key and group commit', () => {
  it('refuses a key on the first request after its revocation, though it was used (and cached) before', async () => {
    const apiKey = await createTestApiKey(server.admin, { self: [SELF] });
    const body = { to: groupJid, text: 'before revoke', category: 'otp' };
    const idempotencyKey = randomUUID();
    expect((await postMessage(server.url, apiKey.key, body, idempotencyKey)).status).toBe(202);
    await server.admin.revokeApiKey(apiKey.id);
    const fresh = await postMessage(server.url, apiKey.key, { ...body, text: 'after revoke' });
    const replay = await postMessage(server.url, apiKey.key, body, idempotencyKey);
    const badBody = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'x', category: 'newsletter' });
    const noIdempotencyKey = await postMessage(server.url, apiKey.key, body, null);
    for (const response of [fresh, replay, badBody, noIdempotencyKey]) {
      expect({ status: response.status, code: response.json['code'] }).toEqual({
        status: 401,
        code: 'WA_ERR_BAD_API_KEY',
      });
    }
    const { rows } = await server.pool.query('SELECT 1 FROM outbound_messages WHERE api_key_id = $1', [apiKey.id]);
    expect(rows).toHaveLength(1);
  });

  it('commits one message for concurrent requests with the same Idempotency-Key; twins get 409, its id or 422', async () => {
    const apiKey = await createTestApiKey(server.admin, { self: [SELF] });
    const idempotencyKey = randomUUID();
    const body = { to: groupJid, text: 'only once', category: 'transactional' };
    const bodies = [
      ...Array.from({ length: 12 }, () => body),
      ...Array.from({ length: 4 }, (_, i) => ({ ...body, text: `other ${i}` })),
    ];
    const responses = await Promise.all(
      bodies.map((b) => postMessageWithHeaders(server.url, apiKey.key, b, idempotencyKey))
    );
    const isFirst = (r: (typeof responses)[number]): boolean =>
      r.status === 202 && r.headers.get('idempotent-replayed') === null;
    const acceptedAt = responses.findIndex(isFirst);
    expect(responses.filter(isFirst)).toHaveLength(1);
    const winner = responses[acceptedAt]?.json['id'];
    const winnerText = bodies[acceptedAt]?.text;
    // ADR 0030: a twin that arrives while the first is being accepted gets 409; a later one the first answer again.
    responses.forEach((r, i) => {
      if (i === acceptedAt) return;
      if (r.status === 409) expect(r.json['code']).toBe('WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT');
      else if (bodies[i]?.text === winnerText)
        expect([r.status, r.json['id'], r.headers.get('idempotent-replayed')]).toEqual([202, winner, 'true']);
      else expect([r.status, r.json['code']]).toEqual([422, 'WA_ERR_IDEMPOTENCY_MISMATCH']);
    });
    expect(await countRows(idempotencyKey)).toBe(1);
  });

  it('answers each request of a concurrent burst by its own checks, and a body PostgreSQL refuses fails alone', async () => {
    const apiKey = await createTestApiKey(server.admin, { self: [SELF] });
    const notMember = await seedGroup(server.pool, ['100000000000078@lid']);
    const cases: Array<{ to: string; text: string; status: number; code?: string }> = [
      ...Array.from({ length: 10 }, (_, i) => ({ to: groupJid, text: `burst ${i}`, status: 202 })),
      { to: notMember, text: 'not a member', status: 422, code: 'WA_ERR_RECIPIENT_NOT_ALLOWED' },
      { to: '+55 11 99999-0077', text: 'no opt-in', status: 422, code: 'WA_ERR_RECIPIENT_NOT_ALLOWED' },
      { to: 'nobody', text: 'invalid', status: 422, code: 'WA_ERR_INVALID_RECIPIENT' },
      { to: groupJid, text: 'nul \u0000 byte', status: 422, code: 'WA_ERR_UNSTORABLE_PAYLOAD' },
    ];
    const keys = cases.map(() => randomUUID());
    const responses = await Promise.all(
      cases.map((c, i) => postMessage(server.url, apiKey.key, { to: c.to, text: c.text, category: 'otp' }, keys[i]))
    );
    for (const [i, c] of cases.entries()) {
      const response = responses[i];
      expect({ text: c.text, status: response?.status, code: response?.json['code'] }).toEqual({
        text: c.text,
        status: c.status,
        code: c.code,
      });
      expect(await countRows(keys[i] ?? '')).toBe(c.status === 202 ? 1 : 0);
    }
  });

  it('looks the Idempotency-Key up before the deadline: a replay after deliver_by passed answers the first 202 again', async () => {
    const apiKey = await createTestApiKey(server.admin, { self: [SELF] });
    const idempotencyKey = randomUUID();
    const deliverBy = new Date(Date.now() + 3_000);
    const body = { to: groupJid, text: 'due soon', category: 'otp', deliver_by: deliverBy.toISOString() };
    const first = await postMessage(server.url, apiKey.key, body, idempotencyKey);
    expect(first.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deliverBy.getTime() - Date.now() + 50)));
    const replay = await postMessage(server.url, apiKey.key, body, idempotencyKey);
    const otherBody = await postMessage(server.url, apiKey.key, { ...body, text: 'changed' }, idempotencyKey);
    const fresh = await postMessage(server.url, apiKey.key, body);
    expect(replay).toEqual({ status: 202, json: first.json });
    expect([otherBody.status, otherBody.json['code']]).toEqual([422, 'WA_ERR_IDEMPOTENCY_MISMATCH']);
    expect([fresh.status, fresh.json['code']]).toEqual([422, 'WA_ERR_DELIVER_BY_PASSED']);
    expect(await countRows(idempotencyKey)).toBe(1);
  });
});
