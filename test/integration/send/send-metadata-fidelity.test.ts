import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SEND_BODY_MAX_DEPTH } from '../../../ingest-api/send/parse-send-json.js';
import { parseJsonKeepingIntegers } from '../../../common/exact-json-text.js';
import { buildStatusWebhookRequest } from '../../../ingest-api/send/status-webhook-request.js';
import { StatusWebhookTargets } from '../../../lake/send/status-webhook-targets.js';
import {
  createTestApiKey,
  getMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

const SELF = '100000000000098@lid';
let server: SendTestServer;
let apiKey: { key: string; accountId: string; id: string };
let groupJid: string;

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'));
  apiKey = await createTestApiKey(server.admin, { self: [SELF] });
  groupJid = await seedGroup(server.pool, [SELF, '100000000000002@lid']);
});
afterAll(async () => {
  await server.close();
});

/** POSTs a send body written as raw JSON text, so the test controls every digit and key. */
async function postRaw(metadataJson: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await postRawText(metadataJson);
  return { status: response.status, json: JSON.parse(response.text) as Record<string, unknown> };
}

async function postRawText(metadataJson: string): Promise<{ status: number; text: string }> {
  const body = `{"to":${JSON.stringify(groupJid)},"text":"hi","category":"transactional","metadata":${metadataJson}}`;
  const response = await fetch(`${server.url}/api/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey.key, 'idempotency-key': randomUUID() },
    body,
  });
  return { status: response.status, text: await response.text() };
}

async function storedMessages(): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM outbound_messages WHERE api_key_id = $1',
    [apiKey.id]
  );
  return rows[0]?.n ?? 0;
}

// ADR 0014 decision 4: the send API keeps 2^53+ integers, 1e400, `__proto__` and metadata nested 5,000 deep as
// sent, or refuses them before answering 202.
describe('POST /api/v1/messages never changes the metadata it accepts', () => {
  it.each([
    ['a number that is not finite', '{"score":1e400}', 'not finite'],
    ['a __proto__ key', '{"__proto__":{"isAdmin":true}}', '"__proto__"'],
    ['a constructor key', '{"nested":{"constructor":{"prototype":1}}}', '"constructor"'],
    ['metadata nested 5,000 deep', `${'['.repeat(5_000)}${']'.repeat(5_000)}`, 'nested deeper'],
    ['a key given twice', '{"tier":"gold","tier":"free"}', 'the key "tier" appears twice'],
  ])('refuses %s with 422 WA_ERR_UNREPRESENTABLE_JSON and stores nothing', async (_name, metadataJson, says) => {
    const before = await storedMessages();
    const response = await postRaw(metadataJson);
    expect(response.status).toBe(422);
    expect(response.json['code']).toBe('WA_ERR_UNREPRESENTABLE_JSON');
    expect(response.json['detail']).toContain(says);
    expect(await storedMessages()).toBe(before);
  });

  it('keeps every digit of integers beyond 2^53 in storage, GET and the status webhook body', async () => {
    const digits = ['1234567890123456789', '-98765432109876543210987', '9007199254740993'];
    const metadataJson = `{"discord_id":${digits[0]},"nested":{"big":[${digits[1]},${digits[2]}]},"small":42}`;
    const accepted = await postRaw(metadataJson);
    expect(accepted.status).toBe(202);
    const id = accepted.json['id'] as string;

    const { rows } = await server.pool.query<{ discord: string; big: string }>(
      `SELECT metadata->>'discord_id' AS discord, metadata#>>'{nested,big}' AS big FROM outbound_messages WHERE id = $1`,
      [id]
    );
    expect(rows[0]).toEqual({ discord: digits[0], big: `[${digits[1]}, ${digits[2]}]` });

    const response = await fetch(`${server.url}/api/v1/messages/${id}`, { headers: { 'x-api-key': apiKey.key } });
    expect(response.status).toBe(200);
    // jsonb orders keys its own way; values are compared exactly, bigints included.
    const got = parseJsonKeepingIntegers(await response.text()) as Record<string, unknown>;
    expect(got['metadata']).toEqual(parseJsonKeepingIntegers(metadataJson));
    expect((got['metadata'] as Record<string, unknown>)['discord_id']).toBe(BigInt(digits[0]!));

    await server.pool.query(
      `UPDATE send_api_keys SET webhook_url = 'https://hooks.example.org/wa', webhook_secret = 'clear:x' WHERE id = $1`,
      [apiKey.id]
    );
    const target = await new StatusWebhookTargets(server.pool).find(id);
    await server.pool.query(`UPDATE send_api_keys SET webhook_url = NULL, webhook_secret = NULL WHERE id = $1`, [
      apiKey.id,
    ]);
    expect(target).not.toBeNull();
    const request = buildStatusWebhookRequest(
      {
        url: target!.url,
        secret: `whsec_${Buffer.from('secret-bytes-32-long-enough-!!!').toString('base64')}`,
        metadata: target!.metadata,
      },
      { messageId: id, state: 'sent', at: new Date(0).toISOString(), reasonCode: null, sequence: 1 },
      Date.now()
    );
    const webhook = parseJsonKeepingIntegers(request.body) as { data: { metadata: unknown } };
    expect(webhook.data.metadata).toEqual(parseJsonKeepingIntegers(metadataJson));
    for (const value of digits) expect(request.body).toContain(value);
  });

  it(`accepts metadata up to the documented depth (${String(SEND_BODY_MAX_DEPTH)} levels for the body) unchanged`, async () => {
    // The body object is level 1 and the metadata object level 2.
    const depth = SEND_BODY_MAX_DEPTH - 2;
    const metadataJson = `{"safe":9007199254740991,"small":-0.5,"deep":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
    const response = await postRaw(metadataJson);
    expect(response.status).toBe(202);
    const status = await getMessage(server.url, apiKey.key, response.json['id'] as string);
    expect(status.json['metadata']).toEqual(JSON.parse(metadataJson));
    expect((await postRaw(`{"deep":${'['.repeat(depth + 1)}1${']'.repeat(depth + 1)}}`)).status).toBe(422);
  });
});
