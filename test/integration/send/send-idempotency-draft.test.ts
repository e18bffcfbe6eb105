import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createTestApiKey,
  postMessageWithHeaders,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// draft-ietf-httpapi-idempotency-key-header behaviours and RFC 9457 errors of the public API (ADR 0015).
let server: SendTestServer;
let groupJid: string;
let apiKey: { key: string; accountId: string; id: string };

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'));
  groupJid = await seedGroup(server.pool, []);
  apiKey = await createTestApiKey(server.admin);
});
afterAll(async () => {
  await server.close();
});

const body = (text: string): Record<string, string> => ({ to: groupJid, text, category: 'otp' });

function expectProblem(
  response: { status: number; json: Record<string, unknown>; headers: Headers },
  status: number,
  code: string
): void {
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  // The draft's error scenarios: a link to the documentation, in the body (`type`) and as `Link` (ADR 0030).
  expect(response.headers.get('link')).toBe(`</api/v1/problems/${code}>; rel="describedby"; type="text/markdown"`);
  expect(response.json).toMatchObject({
    type: `/api/v1/problems/${code}`,
    title: expect.any(String) as unknown,
    status,
    detail: expect.any(String) as unknown,
    code,
  });
  expect(response.status).toBe(status);
}

describe('Idempotency-Key as draft-ietf-httpapi-idempotency-key-header says (ADR 0015)', () => {
  it('takes the Structured Field string "abc" and the bare abc as the same key', async () => {
    const key = `k-${randomUUID()}`;
    const quoted = await postMessageWithHeaders(server.url, apiKey.key, body('sf string'), `"${key}"`);
    const bare = await postMessageWithHeaders(server.url, apiKey.key, body('sf string'), key);
    expect(quoted.status).toBe(202);
    expect(quoted.headers.get('idempotent-replayed')).toBeNull();
    expect([bare.status, bare.json, bare.headers.get('idempotent-replayed')]).toEqual([202, quoted.json, 'true']);
    const escaped = await postMessageWithHeaders(server.url, apiKey.key, body('escaped'), `"${key}\\\\x"`);
    const escapedBare = await postMessageWithHeaders(server.url, apiKey.key, body('escaped'), `${key}\\x`);
    expect([escaped.status, escapedBare.status, escapedBare.json]).toEqual([202, 202, escaped.json]);
    const { rows } = await server.pool.query(
      'SELECT idempotency_key FROM outbound_messages WHERE api_key_id = $1 AND idempotency_key LIKE $2 ORDER BY 1',
      [apiKey.id, `${key}%`]
    );
    expect(rows).toEqual([{ idempotency_key: key }, { idempotency_key: `${key}\\x` }]);
  });

  it('answers 400 problem+json for a missing key, and names what is wrong with an empty, malformed, repeated or over-long one', async () => {
    const missing = await postMessageWithHeaders(server.url, apiKey.key, body('bad key'), null);
    expectProblem(missing, 400, 'WA_ERR_MISSING_IDEMPOTENCY_KEY');
    for (const [value, detail] of [
      ['', 'the Idempotency-Key header is empty'],
      ['""', 'the Idempotency-Key header is empty'],
      ['"unterminated', 'neither a quoted string'],
      ['two words', 'neither a quoted string'],
      ['"a", "b"', 'holds a list or came twice'],
      ['a,b', 'holds a list or came twice'],
      ['x'.repeat(256), 'the Idempotency-Key is 256 characters long; at most 255 are accepted'],
    ] as const) {
      const response = await postMessageWithHeaders(server.url, apiKey.key, body('bad key'), value);
      expectProblem(response, 400, 'WA_ERR_INVALID_IDEMPOTENCY_KEY');
      expect(response.json['title']).toBe('Invalid idempotency key');
      expect(response.json['detail']).toContain(detail);
    }
  });

  it('answers 409 to a repeat while the first request with that key is still being accepted', async () => {
    const limited = await createTestApiKey(server.admin, { dailyLimit: 5 });
    const key = randomUUID();
    // Hold the key's quota row: the first request's accept statement waits on it, so it is in flight.
    const blocker = await server.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM send_api_key_usage WHERE api_key_id = $1 FOR UPDATE', [limited.id]);
      const first = postMessageWithHeaders(server.url, limited.key, body('in flight'), key);
      await expect
        .poll(
          async () => {
            const { rows } = await server.pool.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE '%jsonb_to_recordset%'`
            );
            return rows[0]?.n;
          },
          { timeout: 30_000 }
        )
        .toBe(1);
      const repeat = await postMessageWithHeaders(server.url, limited.key, body('in flight'), key);
      expectProblem(repeat, 409, 'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT');
      await blocker.query('COMMIT');
      expect((await first).status).toBe(202);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    const after = await postMessageWithHeaders(server.url, limited.key, body('in flight'), key);
    expect([after.status, after.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
  });

  it('answers 422 to the same key with another body, and 422 expired to any reuse after 24 h (nothing sent)', async () => {
    const key = randomUUID();
    const first = await postMessageWithHeaders(server.url, apiKey.key, body('original'), key);
    expect(first.status).toBe(202);
    expectProblem(
      await postMessageWithHeaders(server.url, apiKey.key, body('changed'), key),
      422,
      'WA_ERR_IDEMPOTENCY_MISMATCH'
    );
    await server.pool.query(`UPDATE outbound_messages SET created_at = now() - interval '25 hours' WHERE id = $1`, [
      first.json['id'],
    ]);
    for (const text of ['original', 'changed']) {
      expectProblem(
        await postMessageWithHeaders(server.url, apiKey.key, body(text), key),
        422,
        'WA_ERR_IDEMPOTENCY_KEY_EXPIRED'
      );
    }
    const { rows } = await server.pool.query('SELECT 1 FROM outbound_messages WHERE idempotency_key = $1', [key]);
    expect(rows).toHaveLength(1);
  });
});

describe('a replay answers what the first request was answered (draft §2.6, ADR 0030)', () => {
  it('repeats status 202 and the same body, marked Idempotent-Replayed, after the message moved on', async () => {
    const key = randomUUID();
    const first = await postMessageWithHeaders(server.url, apiKey.key, body('moves on'), key);
    expect([first.status, first.json['status']]).toEqual([202, 'queued']);
    await server.pool.query(`UPDATE outbound_messages SET state = 'sent' WHERE id = $1`, [first.json['id']]);
    const replay = await postMessageWithHeaders(server.url, apiKey.key, body('moves on'), key);
    expect([replay.status, replay.json, replay.headers.get('idempotent-replayed')]).toEqual([202, first.json, 'true']);
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
  });
});

describe('the Idempotency-Key claim in PostgreSQL (ADR 0030)', () => {
  const claimOf = async (key: string): Promise<number> => {
    const { rows } = await server.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM send_idempotency_claims WHERE api_key_id = $1 AND idempotency_key = $2',
      [apiKey.id, key]
    );
    return rows[0]?.n ?? -1;
  };

  it('answers 409 while another process holds a live claim, and takes over a claim whose lease ended', async () => {
    const key = randomUUID();
    await server.pool.query(
      `INSERT INTO send_idempotency_claims (api_key_id, idempotency_key, token, expires_at)
       VALUES ($1, $2, $3, now() + interval '1 minute')`,
      [apiKey.id, key, randomUUID()]
    );
    expectProblem(
      await postMessageWithHeaders(server.url, apiKey.key, body('claimed elsewhere'), key),
      409,
      'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT'
    );
    await server.pool.query(
      `UPDATE send_idempotency_claims SET expires_at = now() - interval '1 second'
        WHERE api_key_id = $1 AND idempotency_key = $2`,
      [apiKey.id, key]
    );
    const abandoned = randomUUID();
    await server.pool.query(
      `INSERT INTO send_idempotency_claims (api_key_id, idempotency_key, token, expires_at)
       VALUES ($1, $2, $3, now() - interval '1 second')`,
      [apiKey.id, abandoned, randomUUID()]
    );
    const taken = await postMessageWithHeaders(server.url, apiKey.key, body('claimed elsewhere'), key);
    expect([taken.status, taken.headers.get('idempotent-replayed')]).toEqual([202, null]);
    // Neither the taken-over claim nor the key's other lapsed one (a crashed process's) is left.
    expect([await claimOf(key), await claimOf(abandoned)]).toEqual([0, 0]);
  });

  it('releases the claim when the request fails, so a retry with the same key is not refused as in flight', async () => {
    const key = randomUUID();
    const refused = await postMessageWithHeaders(server.url, apiKey.key, body('nul \u0000 byte'), key);
    expectProblem(refused, 422, 'WA_ERR_UNSTORABLE_PAYLOAD');
    expect(await claimOf(key)).toBe(0);
    const retried = await postMessageWithHeaders(server.url, apiKey.key, body('clean'), key);
    expect(retried.status).toBe(202);
    const other = await postMessageWithHeaders(server.url, apiKey.key, { ...body('x'), to: 'nobody' }, key);
    expectProblem(other, 422, 'WA_ERR_IDEMPOTENCY_MISMATCH');
    expect(await claimOf(key)).toBe(0);
  });
});

describe('Idempotency-Key scope (draft security considerations: a composite key per client)', () => {
  it('keeps one key per API key: another key of the same account with the same Idempotency-Key gets its own message', async () => {
    const other = await createTestApiKey(server.admin, { accountId: apiKey.accountId });
    const key = randomUUID();
    const mine = await postMessageWithHeaders(server.url, apiKey.key, body('scoped'), key);
    const theirs = await postMessageWithHeaders(server.url, other.key, body('scoped'), key);
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    expect(theirs.json['id']).not.toBe(mine.json['id']);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    const replay = await postMessageWithHeaders(server.url, other.key, body('scoped'), key);
    expect([replay.status, replay.json]).toEqual([202, theirs.json]);
  });
});

describe('errors of the public API are RFC 9457 problem details (ADR 0015)', () => {
  it('gives each problem type a URI the API answers with a readable page (ADR 0030)', async () => {
    const missing = await postMessageWithHeaders(server.url, apiKey.key, body('no key'), null);
    const pageUrl = new URL(String(missing.json['type']), `${server.url}/api/v1/messages`);
    expect(pageUrl.href).toBe(`${server.url}/api/v1/problems/WA_ERR_MISSING_IDEMPOTENCY_KEY`);
    const page = await fetch(pageUrl);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/markdown; charset=utf-8']);
    const text = await page.text();
    expect(text).toContain(`# ${String(missing.json['title'])}`);
    expect(text).toContain('- Status: 400');
    expect(text).toContain('draft-ietf-httpapi-idempotency-key-header');
    const index = await (await fetch(`${server.url}/api/v1/problems`)).text();
    for (const code of [
      'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT',
      'WA_ERR_IDEMPOTENCY_MISMATCH',
      'WA_ERR_IDEMPOTENCY_KEY_EXPIRED',
    ]) {
      expect(index).toContain(`(/api/v1/problems/${code})`);
    }
  });

  it('answers problem+json with the code kept as an extension member for each kind of error', async () => {
    expectProblem(await postMessageWithHeaders(server.url, 'wlk_unknown', body('x')), 401, 'WA_ERR_BAD_API_KEY');
    expectProblem(
      await postMessageWithHeaders(server.url, apiKey.key, { ...body('x'), category: 'newsletter' }),
      422,
      'WA_ERR_UNKNOWN_CATEGORY'
    );
    const invalid = await postMessageWithHeaders(server.url, apiKey.key, { to: groupJid, category: 'otp' });
    expectProblem(invalid, 422, 'WA_ERR_INVALID_BODY');
    expect(invalid.json['fields']).toEqual([expect.objectContaining({ field: 'text' })]);
    const notJson = await fetch(`${server.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey.key, 'idempotency-key': randomUUID(), 'content-type': 'text/plain' },
      body: 'hello',
    });
    expectProblem(
      { status: notJson.status, json: (await notJson.json()) as Record<string, unknown>, headers: notJson.headers },
      415,
      'WA_ERR_UNSUPPORTED_MEDIA_TYPE'
    );
    const unknownRoute = await fetch(`${server.url}/api/v1/nothing-here`);
    expectProblem(
      {
        status: unknownRoute.status,
        json: (await unknownRoute.json()) as Record<string, unknown>,
        headers: unknownRoute.headers,
      },
      404,
      'WA_ERR_NOT_FOUND'
    );
    const missing = await fetch(`${server.url}/api/v1/messages/${randomUUID()}`, {
      headers: { 'x-api-key': apiKey.key },
    });
    expectProblem(
      { status: missing.status, json: (await missing.json()) as Record<string, unknown>, headers: missing.headers },
      404,
      'WA_ERR_MESSAGE_NOT_FOUND'
    );
    const limited = await createTestApiKey(server.admin, { dailyLimit: 0 });
    expectProblem(
      await postMessageWithHeaders(server.url, limited.key, body('none left')),
      429,
      'WA_ERR_QUOTA_EXCEEDED'
    );
  });

  it('keeps the internal ingest route on its plain {error, code} body', async () => {
    const response = await fetch(`${server.url}/ingest/nowhere`);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error: 'no such route', code: 'WA_ERR_NOT_FOUND' });
  });
});
