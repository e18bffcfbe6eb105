import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { postSigned, startTestIngestServer, type TestIngestServer } from '../../helpers/ingest-test-server.js';

let server: TestIngestServer;
beforeAll(async () => {
  server = await startTestIngestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server.close();
});

/** Posts the exact bytes and returns the stored row's payload and flag. */
async function store(
  body: Buffer | string
): Promise<{ status: number; payload: unknown; sanitized: unknown; type?: unknown }> {
  const eventId = randomUUID();
  const response = await postSigned(server.url, body, { eventId });
  const { rows } = await server.pool.query(
    'SELECT type, payload, sanitized FROM whatsapp_event_logs WHERE event_id = $1',
    [eventId]
  );
  return { status: response.status, ...(rows[0] as { payload: unknown; sanitized: unknown; type: unknown }) };
}

describe('sanitizing on ingest (architecture.md §8)', () => {
  it('removes NUL from values and keys, keeping colliding keys under a defined name', async () => {
    const result = await store(
      '{"type":"messages\\u0000.upsert","payload":{"te\\u0000xt":"a\\u0000b","text":"clean","list":["\\u0000x"]}}'
    );
    expect(result).toMatchObject({ status: 201, sanitized: true, type: 'messages.upsert' });
    expect(result.payload).toEqual({ text: 'clean', 'text\uFFFD1': 'ab', list: ['x'] });
  });

  it('stores a body whose 60 000 distinct keys all become one name, without stalling the server', async () => {
    // Distinct lone surrogates all clean to U+FFFD: every key collides with every other once sanitized.
    const hex = (n: number): string => (0xd800 + n).toString(16);
    const keys = Array.from({ length: 60_000 }, (_, i) => `"k\\u${hex(i % 1024)}\\u${hex(Math.floor(i / 1024))}":${i}`);
    const [result, health] = await Promise.all([
      store(`{"type":"t","payload":{${keys.join(',')}}}`),
      // Asked while the body is being sanitized: answered once the event loop is free again.
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => fetch(`${server.url}/healthz`)),
    ]);
    expect(result).toMatchObject({ status: 201, sanitized: true });
    expect(Object.keys(result.payload as object)).toHaveLength(60_000);
    expect(result.payload).toMatchObject({ 'k\uFFFD\uFFFD': 0, 'k\uFFFD\uFFFD\uFFFD59999': 59_999 });
    expect(health.status).toBe(200);
    // About 1 s with linear naming; naming that is quadratic in the colliding keys takes minutes.
  }, 60_000);

  it('replaces lone high and low surrogates sent as JSON escapes, and keeps valid pairs', async () => {
    const result = await store('{"type":"t","payload":{"high":"a\\ud83db","low":"\\ude00","pair":"\\ud83d\\ude00"}}');
    expect(result).toMatchObject({ status: 201, sanitized: true });
    expect(result.payload).toEqual({ high: 'a\uFFFDb', low: '\uFFFD', pair: '😀' });
  });

  it('replaces invalid UTF-8 bytes in the raw body with U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"type":"t","payload":{"t":"x'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('y"}}'),
    ]);
    const result = await store(body);
    expect(result).toMatchObject({ status: 201, sanitized: true });
    expect(result.payload).toEqual({ t: 'x\uFFFD(\uFFFDy' });
  });

  it('stores valid text byte-for-byte and unflagged, numbers exactly', async () => {
    const result = await store(
      '{"type":"t","payload":{"t":"Ünïcødé 😀 \\"quoted\\" \\\\u0000 literal","big":123456789012345678901234567890}}'
    );
    expect(result).toMatchObject({ status: 201, sanitized: false });
    expect(result.payload).toEqual({ t: 'Ünïcødé 😀 "quoted" \\u0000 literal', big: 1.2345678901234568e29 });
    const { rows } = await server.pool.query(
      `SELECT payload->>'big' AS big FROM whatsapp_event_logs WHERE payload->>'big' IS NOT NULL AND type = 't' ORDER BY received_at DESC LIMIT 1`
    );
    expect(rows[0]).toEqual({ big: '123456789012345678901234567890' });
  });

  it('stores numbers exactly, digit for digit, in a body that needed sanitizing', async () => {
    const eventId = randomUUID();
    const body = Buffer.concat([
      Buffer.from(
        '{"type":"t","payload":{"id":12345678901234567890,"dec":0.1000000000000000055511151231257827,' +
          '"one":1.0,"huge":1e400,"k\\u0000":"\\ud800","t":"a\\u0000b","bad":"'
      ),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    const response = await postSigned(server.url, body, { eventId });
    expect(response.status).toBe(201);
    const { rows } = await server.pool.query(
      `SELECT sanitized, payload #>> '{id}' AS id, payload #>> '{dec}' AS dec, payload #>> '{one}' AS one,
              (payload -> 'huge')::numeric = 1e400 AS is_huge_exact, payload::text AS text
         FROM whatsapp_event_logs WHERE event_id = $1`,
      [eventId]
    );
    expect(rows[0]).toMatchObject({
      sanitized: true,
      id: '12345678901234567890',
      dec: '0.1000000000000000055511151231257827',
      one: '1.0',
      is_huge_exact: true,
    });
    expect((rows[0] as { text: string }).text).toContain('"id": 12345678901234567890');
    expect(JSON.parse((rows[0] as { text: string }).text)).toMatchObject({ k: '\uFFFD', t: 'ab', bad: '\uFFFD' });
  });

  it('answers 422 for a hostile depth of nesting that also needs sanitizing, never 5xx', async () => {
    const depth = 20_000;
    const response = await postSigned(
      server.url,
      `{"type":"t","payload":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`
    );
    expect(response.status).toBe(422);
    expect(response.json['code']).toBe('WA_ERR_INVALID_BODY');
  });
});
