import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openApiSchema, sendRequestBodySchema } from '../../../ingest-api/send/send-api-schemas.js';
import {
  createTestApiKey,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// OpenAPI 3.1 of the public API (ADR 0015): generated from the zod schemas, checked against real answers.
interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: Record<string, { schema: object }> };
        responses: Record<string, { content?: Record<string, { schema: object }> }>;
      }
    >
  >;
}

let server: SendTestServer;
let document: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'), {
    env: { SEND_TEXT_MAX_CHARS: '50', SEND_BODY_LIMIT_BYTES: '4096', INGEST_AUTH_FAILURES_MAX: '5' },
  });
  const response = await fetch(`${server.url}/api/v1/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as OpenApiDocument;
});
afterAll(async () => {
  await server.close();
});

/** Calls the API and checks the answer against the document's schema for its path, method and status. */
async function callAndValidate(
  method: 'get' | 'post',
  docPath: string,
  url: string,
  init: RequestInit = {}
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${url}`, { ...init, method: method.toUpperCase() });
  const json = (await response.json()) as Record<string, unknown>;
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
  const described = document.paths[docPath]?.[method]?.responses[String(response.status)];
  expect(described, `${method} ${docPath} ${response.status} is documented`).toBeDefined();
  const schema = described?.content?.[mediaType]?.schema;
  expect(schema, `${method} ${docPath} ${response.status} ${mediaType} has a schema`).toBeDefined();
  const validate = ajv.compile(schema ?? {});
  expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  return { status: response.status, json };
}

describe('GET /api/v1/openapi.json (ADR 0015)', () => {
  it('is an OpenAPI 3.1 document of the public API only, whose body schema is the route’s zod schema', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/v1/messages',
      '/api/v1/messages/{id}',
      '/api/v1/openapi.json',
      '/api/v1/problems',
      '/api/v1/problems/{code}',
    ]);
    const body = document.paths['/api/v1/messages']?.['post']?.requestBody?.content['application/json']?.schema;
    expect(body).toEqual(openApiSchema(sendRequestBodySchema));
  });

  it('describes every real answer of every route', async () => {
    const self = '100000000000055@lid';
    const groupJid = await seedGroup(server.pool, [self]);
    const live = await createTestApiKey(server.admin, { self: [self], dailyLimit: 3 });
    const testKey = await createTestApiKey(server.admin, { environment: 'test' });
    const post = (
      key: string,
      body: unknown,
      idempotencyKey: string = randomUUID(),
      contentType = 'application/json'
    ) =>
      callAndValidate('post', '/api/v1/messages', '/api/v1/messages', {
        headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey, 'content-type': contentType },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const body = { to: groupJid, text: 'documented', category: 'otp', metadata: { a: 1 } };
    const replayKey = randomUUID();
    const accepted = await post(live.key, body, replayKey);
    expect(accepted.status).toBe(202);
    const replay = await post(live.key, body, replayKey);
    expect([replay.status, replay.json]).toEqual([202, accepted.json]);
    expect((await post(live.key, body, '')).status).toBe(400);
    expect((await post('wlk_nobody', body)).status).toBe(401);
    expect((await post(testKey.key, body)).status).toBe(403);
    expect((await post(live.key, 'plain', randomUUID(), 'text/plain')).status).toBe(415);
    expect((await post(live.key, { ...body, text: 'x'.repeat(60) })).status).toBe(422);
    expect((await post(live.key, { ...body, text: 'two' })).status).toBe(202);
    expect((await post(live.key, { ...body, text: 'three' })).status).toBe(202);
    expect((await post(live.key, { ...body, text: 'four' })).status).toBe(429);
    const get = (key: string, id: string) =>
      callAndValidate('get', '/api/v1/messages/{id}', `/api/v1/messages/${id}`, { headers: { 'x-api-key': key } });
    expect((await get(live.key, accepted.json['id'] as string)).status).toBe(200);
    expect((await get('wlk_nobody', accepted.json['id'] as string)).status).toBe(401);
    expect((await get(live.key, randomUUID())).status).toBe(404);
    const requestBody = document.paths['/api/v1/messages']?.['post']?.requestBody?.content['application/json']?.schema;
    expect(
      ajv.validate(requestBody ?? {}, { to: groupJid, template: 'otp', variables: { code: 1 }, category: 'otp' })
    ).toBe(true);
    expect(ajv.validate(requestBody ?? {}, { ...body, deliverBy: 'typo' })).toBe(false);
    expect((await callAndValidate('get', '/api/v1/openapi.json', '/api/v1/openapi.json')).status).toBe(200);
  });

  it('documents the replay header and links each error answer of the Idempotency-Key draft to its problem page', () => {
    const responses = document.paths['/api/v1/messages']?.['post']?.responses ?? {};
    expect(Object.keys(responses)).not.toContain('200');
    expect(responses['202']).toMatchObject({ headers: { 'idempotent-replayed': { schema: { enum: ['true'] } } } });
    expect(responses['202']).toMatchObject({ headers: { ratelimit: {}, 'ratelimit-policy': {} } });
    expect(responses['429']).toMatchObject({ headers: { 'retry-after': {}, ratelimit: {}, 'ratelimit-policy': {} } });
    const linked: Array<[string, string]> = [
      ['400', 'WA_ERR_MISSING_IDEMPOTENCY_KEY'],
      ['400', 'WA_ERR_INVALID_IDEMPOTENCY_KEY'],
      ['409', 'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT'],
      ['422', 'WA_ERR_IDEMPOTENCY_MISMATCH'],
      ['422', 'WA_ERR_IDEMPOTENCY_KEY_EXPIRED'],
    ];
    for (const [status, code] of linked) {
      expect((responses[status] as { description?: string }).description).toContain(`(/api/v1/problems/${code})`);
    }
  });

  it('serves the page of every problem type its documents link to, as Markdown, and 404 for an unknown one', async () => {
    const page = document.paths['/api/v1/problems/{code}']?.['get'];
    const markdownSchema = page?.responses['200']?.content?.['text/markdown']?.schema ?? {};
    const response = await fetch(`${server.url}/api/v1/problems/WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT`);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await response.text();
    expect(ajv.validate(markdownSchema, text)).toBe(true);
    expect(text).toMatch(/^# Idempotency key in flight\n/);
    expect(text).toContain('- Status: 409');
    const unknown = await callAndValidate('get', '/api/v1/problems/{code}', '/api/v1/problems/WA_ERR_NOPE');
    expect([unknown.status, unknown.json['type']]).toEqual([404, '/api/v1/problems/WA_ERR_NOT_FOUND']);
  });

  it('describes the answers that need a held lock or a large body: 409 in flight and 413', async () => {
    const self = '100000000000056@lid';
    const groupJid = await seedGroup(server.pool, [self]);
    const limited = await createTestApiKey(server.admin, { self: [self], dailyLimit: 5 });
    const post = (body: string, idempotencyKey: string) =>
      callAndValidate('post', '/api/v1/messages', '/api/v1/messages', {
        headers: { 'x-api-key': limited.key, 'idempotency-key': idempotencyKey, 'content-type': 'application/json' },
        body,
      });
    const body = JSON.stringify({ to: groupJid, text: 'held', category: 'otp' });
    expect(
      (await post(JSON.stringify({ to: groupJid, text: 'x'.repeat(5000), category: 'otp' }), randomUUID())).status
    ).toBe(413);
    // Holding the key's quota row keeps the first request's accept statement waiting: its key is in flight.
    const blocker = await server.pool.connect();
    const key = randomUUID();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM send_api_key_usage WHERE api_key_id = $1 FOR UPDATE', [limited.id]);
      const first = post(body, key);
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
      expect((await post(body, key)).status).toBe(409);
      await blocker.query('COMMIT');
      expect((await first).status).toBe(202);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
  });

  // Last: once blocked, this address gets 429 on every API-key route of this server.
  it('describes the 429 of an address with too many failed API-key checks', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10 && !statuses.includes(429); i += 1) {
      const answer = await callAndValidate('get', '/api/v1/messages/{id}', `/api/v1/messages/${randomUUID()}`, {
        headers: { 'x-api-key': `wlk_guess_${i}` },
      });
      statuses.push(answer.status);
    }
    expect(statuses.at(-1)).toBe(429);
  });
});
