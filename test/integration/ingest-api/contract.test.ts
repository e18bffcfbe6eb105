import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { computeSignature } from '../../../common/hmac-signature.js';
import { INGEST_PATH } from '../../../common/ingest-body.js';
import {
  SECRET_A,
  SECRET_B,
  messageBody,
  postSigned,
  sendRawHttp,
  startTestIngestServer,
  type TestIngestServer,
} from '../../helpers/ingest-test-server.js';

let server: TestIngestServer;
beforeAll(async () => {
  server = await startTestIngestServer(inject('databaseUrl'), { bodyLimitBytes: 64 * 1024 });
});
afterAll(async () => {
  await server.close();
});

async function rowFor(eventId: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await server.pool.query('SELECT * FROM whatsapp_event_logs WHERE event_id = $1', [eventId]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe('POST /api/webhooks/whatsapp (architecture.md §8 table)', () => {
  it('answers 401 WA_ERR_MISSING_SIGNATURE when X-Signature or X-Event-Id is missing or empty', async () => {
    const body = messageBody();
    for (const headers of [{ 'x-signature': '' }, { 'x-event-id': '' }] as Array<Record<string, string>>) {
      const response = await postSigned(server.url, body, { headers });
      expect(response.status).toBe(401);
      expect(response.json['code']).toBe('WA_ERR_MISSING_SIGNATURE');
    }
    const bare = await fetch(`${server.url}${INGEST_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ code: 'WA_ERR_MISSING_SIGNATURE' });
  });

  it('answers 401 WA_ERR_BAD_SIGNATURE for a wrong secret, a tampered body or a malformed signature', async () => {
    const eventId = randomUUID();
    const body = messageBody();
    const wrongSecret = await postSigned(server.url, body, { eventId, secret: 'another-secret-cccccccccccc' });
    const tampered = await postSigned(server.url, body.replace('hello', 'hellp'), {
      eventId,
      signature: computeSignature(SECRET_A, eventId, body),
    });
    const malformed = await postSigned(server.url, body, { eventId, signature: 'sha256=abc' });
    for (const response of [wrongSecret, tampered, malformed]) {
      expect(response.status).toBe(401);
      expect(response.json).toMatchObject({ code: 'WA_ERR_BAD_SIGNATURE' });
    }
    expect(await rowFor(eventId)).toBeUndefined();
  });

  it('verifies over the raw bytes: non-ASCII text and \\u escapes that a re-serialization would change', async () => {
    const eventId = randomUUID();
    const body = `{"type":"messages.upsert","chat_jid":"120363000000000001@g.us","payload":{"text":"caf\\u00e9 ☕ \\ud83d\\ude00 😀","n":1.50,"key":{"id":"X"}},  "captured_at":"2026-01-01T00:00:00Z"}`;
    const response = await postSigned(server.url, Buffer.from(body, 'utf8'), { eventId });
    expect(response.status).toBe(201);
    const row = await rowFor(eventId);
    expect((row?.['payload'] as { text: string }).text).toBe('café ☕ 😀 😀');
    expect(row?.['sanitized']).toBe(false);
  });

  it('accepts every configured secret (rotation without downtime)', async () => {
    const first = await postSigned(server.url, messageBody(), { secret: SECRET_A });
    const second = await postSigned(server.url, messageBody(), { secret: SECRET_B });
    expect([first.status, second.status]).toEqual([201, 201]);
  });

  it('answers 400 WA_ERR_INVALID_EVENT_ID when X-Event-Id is not a UUID', async () => {
    const response = await postSigned(server.url, messageBody(), { eventId: 'not-a-uuid' });
    expect(response.status).toBe(400);
    expect(response.json['code']).toBe('WA_ERR_INVALID_EVENT_ID');
  });

  it('answers 413 WA_ERR_BODY_TOO_LARGE over the body limit', async () => {
    const body = messageBody({ padding: 'x'.repeat(70 * 1024) });
    const response = await postSigned(server.url, body);
    expect(response.status).toBe(413);
    expect(response.json['code']).toBe('WA_ERR_BODY_TOO_LARGE');
  });

  it('answers 415 for a non-JSON media type and 400 for a body that is not JSON', async () => {
    const text = await postSigned(server.url, messageBody(), { contentType: 'text/plain' });
    const none = await postSigned(server.url, messageBody(), { contentType: null });
    const broken = await postSigned(server.url, '{"type": "x", ');
    expect([text.status, none.status, broken.status]).toEqual([415, 415, 400]);
    expect([text.json['code'], none.json['code'], broken.json['code']]).toEqual([
      'WA_ERR_UNSUPPORTED_MEDIA_TYPE',
      'WA_ERR_UNSUPPORTED_MEDIA_TYPE',
      'WA_ERR_INVALID_JSON',
    ]);
    const withCharset = await postSigned(server.url, messageBody(), { contentType: 'application/json; charset=utf-8' });
    expect(withCharset.status).toBe(201);
  });

  it.each([
    ['type missing', { type: undefined }, 'type'],
    ['type not a string', { type: 42 }, 'type'],
    ['type over 100 characters', { type: 't'.repeat(101) }, 'type'],
    ['payload missing', { payload: undefined }, 'payload'],
    ['payload a string', { payload: 'text' }, 'payload'],
    ['payload an empty object', { payload: {} }, 'payload'],
    ['payload an empty array', { payload: [] }, 'payload'],
    ['chat_jid a number', { chat_jid: 12 }, 'chat_jid'],
    ['chat_jid over 255 characters', { chat_jid: 'j'.repeat(256) }, 'chat_jid'],
  ])('answers 422 WA_ERR_INVALID_BODY with field errors when %s', async (_name, overrides, field) => {
    const response = await postSigned(server.url, messageBody(overrides));
    expect(response.status).toBe(422);
    expect(response.json['code']).toBe('WA_ERR_INVALID_BODY');
    expect(response.json['fields']).toEqual([expect.objectContaining({ field })]);
  });

  it('answers 201 stored, then 200 duplicate with Idempotent-Replayed: true, and keeps one row', async () => {
    const eventId = randomUUID();
    const body = messageBody({ unknown_field: true });
    const first = await postSigned(server.url, body, { eventId });
    const second = await postSigned(server.url, body, { eventId });
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ status: 'stored' });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ status: 'duplicate' });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const { rows } = await server.pool.query('SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE event_id = $1', [
      eventId,
    ]);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('stores the shared columns, captured_at, upsert_type and occurred_at from messageTimestamp', async () => {
    const eventId = randomUUID();
    await postSigned(server.url, messageBody(), { eventId });
    const row = await rowFor(eventId);
    expect(row).toMatchObject({
      type: 'messages.upsert',
      chat_jid: '120363000000000001@g.us',
      upsert_type: 'notify',
      sanitized: false,
    });
    expect((row?.['occurred_at'] as Date).toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect((row?.['captured_at'] as Date).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(row?.['received_at']).toBeInstanceOf(Date);
    expect(String(row?.['id'])).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  });

  it('answers two simultaneous first deliveries of one event_id with 2xx each and stores one row', async () => {
    const eventId = randomUUID();
    const body = messageBody();
    const responses = await Promise.all(Array.from({ length: 8 }, () => postSigned(server.url, body, { eventId })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const { rows } = await server.pool.query('SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE event_id = $1', [
      eventId,
    ]);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it.each(['text/html', 'application/xml', '*/*', 'text/html,application/xhtml+xml;q=0.9'])(
    'answers errors as JSON, never a redirect, for Accept: %s',
    async (accept) => {
      const missing = await fetch(`${server.url}${INGEST_PATH}`, {
        method: 'POST',
        headers: { accept },
        body: 'x',
        redirect: 'manual',
      });
      const unknown = await fetch(`${server.url}/nowhere`, { headers: { accept }, redirect: 'manual' });
      const bad = await postSigned(server.url, messageBody(), {
        headers: { accept },
        secret: 'wrong-secret-dddddddddddddd',
      });
      for (const response of [missing, unknown]) {
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(response.headers.get('location')).toBeNull();
        expect(await response.json()).toHaveProperty('code');
      }
      expect(bad.status).toBe(401);
      expect(bad.headers.get('content-type')).toMatch(/^application\/json/);
    }
  );
});

describe('health and metrics', () => {
  it('answers /healthz and /readyz with 200 and exposes request, duplicate, sanitized, latency and batch-size metrics', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const eventId = randomUUID();
    await postSigned(server.url, messageBody(), { eventId });
    await postSigned(server.url, messageBody(), { eventId });
    await postSigned(server.url, messageBody({ payload: { text: 'a\\u0000b' } }).replace('a\\\\u0000b', 'a\\u0000b'));
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/wa_ingest_requests_total\{status="201"\} \d+/);
    expect(metrics).toMatch(/wa_ingest_requests_total\{status="200"\} \d+/);
    expect(metrics).toMatch(/wa_ingest_duplicates_total [1-9]/);
    expect(metrics).toMatch(/wa_ingest_sanitized_total [1-9]/);
    expect(metrics).toMatch(/wa_ingest_insert_duration_seconds_count [1-9]/);
    expect(metrics).toMatch(/wa_ingest_insert_batch_rows_count [1-9]/);
  });
});

describe('malformed HTTP (rejected by the parser before Fastify routes it)', () => {
  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n'],
    ['a Content-Length that is not a number', `POST ${INGEST_PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`],
    ['a bare LF in the request line', `GET /healthz HTTP/1.1\nHost: x\n\n`],
  ])('answers %s with JSON 400 WA_ERR_BAD_REQUEST and closes the connection', async (_name, bytes) => {
    const answer = await sendRawHttp(server.url, bytes);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['connection']).toBe('close');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
    expect(JSON.parse(answer.body)).toEqual({ error: 'malformed request', code: 'WA_ERR_BAD_REQUEST' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers headers over the size limit with JSON 431 WA_ERR_HEADERS_TOO_LARGE', async () => {
    const answer = await sendRawHttp(
      server.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`
    );
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['connection']).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({ error: 'request headers too large', code: 'WA_ERR_HEADERS_TOO_LARGE' });
  });
});

describe('wa_ingest_requests_total', () => {
  async function requestsCounted(): Promise<number> {
    const { values } = await server.metrics.requests.get();
    return values.reduce((sum, { value }) => sum + value, 0);
  }

  it('leaves out /healthz, /readyz and /metrics, with or without a query string, and counts the rest', async () => {
    const before = await requestsCounted();
    for (const path of ['/healthz', '/healthz?probe=1', '/readyz?probe=1&x=2', '/metrics?name[]=wa', '/readyz?']) {
      expect((await fetch(`${server.url}${path}`)).status).toBe(200);
    }
    expect(await requestsCounted()).toBe(before);
    expect((await fetch(`${server.url}/healthz-not?probe=1`)).status).toBe(404);
    expect((await postSigned(server.url, messageBody())).status).toBe(201);
    expect(await requestsCounted()).toBe(before + 2);
  });
});
