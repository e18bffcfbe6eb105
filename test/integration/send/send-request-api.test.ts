import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCheckSendStart } from '../../../activities/check-send-start.js';
import { postSignedInternal } from '../../../activities/post-signed-internal.js';
import { SEND_STATUS_WEBHOOKS_PATH } from '../../../common/send-status-webhook.js';
import { SEND_STARTS_PATH, SEND_TRANSITIONS_PATH } from '../../../common/send-transition-report.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import {
  createTestApiKey,
  getMessage,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

const SELF = '100000000000099@lid';
let server: SendTestServer;
let apiKey: { key: string; accountId: string; id: string };
let groupJid: string;

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'));
  apiKey = await createTestApiKey(server.admin, { self: [SELF] });
  groupJid = await seedGroup(server.pool, [SELF, '100000000000001@lid']);
});
afterAll(async () => {
  await server.close();
});

const inOneHour = (): string => new Date(Date.now() + 3_600_000).toISOString();

describe('POST /api/v1/messages (architecture.md §12)', () => {
  it('commits the intent and answers 202 {id, status: queued}; GET shows the queued transition', async () => {
    const response = await postMessage(server.url, apiKey.key, {
      to: groupJid,
      text: 'reminder: meeting at 8',
      category: 'transactional',
      deliver_by: inOneHour(),
      metadata: { campaign: 'c1' },
    });
    expect(response.status).toBe(202);
    expect(response.json).toMatchObject({ status: 'queued' });
    const id = response.json['id'] as string;
    const { rows } = await server.pool.query<Record<string, string>>(
      'SELECT state, to_jid, category, wa_message_id FROM outbound_messages WHERE id = $1',
      [id]
    );
    expect(rows).toEqual([expect.objectContaining({ state: 'queued', to_jid: groupJid, category: 'transactional' })]);
    expect(rows[0]?.['wa_message_id']).toMatch(/^3EB0[0-9A-F]{18}$/);
    const status = await getMessage(server.url, apiKey.key, id);
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ id, status: 'queued', metadata: { campaign: 'c1' } });
    expect(status.json['transitions']).toEqual([
      { state: 'queued', at: expect.any(String) as unknown, reason_code: null },
    ]);
  });

  it('answers the first 202 again (same id and body) for the same key and body, 422 for the same key and another body', async () => {
    const idempotencyKey = randomUUID();
    const body = { to: groupJid, text: 'once', category: 'marketing', metadata: { a: 1, b: 2 } };
    const first = await postMessage(server.url, apiKey.key, body, idempotencyKey);
    const reordered = { metadata: { b: 2, a: 1 }, category: 'marketing', text: 'once', to: groupJid };
    const second = await postMessage(server.url, apiKey.key, reordered, idempotencyKey);
    const different = await postMessage(server.url, apiKey.key, { ...body, text: 'twice' }, idempotencyKey);
    expect(first.status).toBe(202);
    expect(second).toEqual({ status: 202, json: first.json });
    expect(different.status).toBe(422);
    expect(different.json['code']).toBe('WA_ERR_IDEMPOTENCY_MISMATCH');
    const { rows } = await server.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbound_messages WHERE api_key_id = $1 AND idempotency_key = $2',
      [apiKey.id, idempotencyKey]
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('answers 401 WA_ERR_BAD_API_KEY for a missing, unknown or revoked key', async () => {
    const revoked = await createTestApiKey(server.admin);
    await server.admin.revokeApiKey(revoked.id);
    const body = { to: groupJid, text: 'x', category: 'otp' };
    for (const key of [null, 'wlk_unknown', revoked.key]) {
      const response = await postMessage(server.url, key, body);
      expect(response.status).toBe(401);
      expect(response.json['code']).toBe('WA_ERR_BAD_API_KEY');
    }
  });

  it('answers a 4xx with a code for each invalid request, and commits nothing', async () => {
    const otherGroup = await seedGroup(server.pool, ['100000000000002@lid']);
    const leftGroup = await seedGroup(server.pool, [], [SELF]);
    const cases: Array<[unknown, number, string]> = [
      [{ to: groupJid, text: 'x'.repeat(101), category: 'otp' }, 422, 'WA_ERR_TEXT_TOO_LONG'],
      [
        { to: groupJid, text: 'x', category: 'otp', deliver_by: new Date(Date.now() - 1000).toISOString() },
        422,
        'WA_ERR_DELIVER_BY_PASSED',
      ],
      [
        { to: groupJid, text: 'x', category: 'otp', deliver_by: '9999-12-31T00:00:00Z' },
        422,
        'WA_ERR_DELIVER_BY_TOO_FAR',
      ],
      [
        { to: groupJid, text: 'x', category: 'otp', metadata: { note: 'x'.repeat(200_000) } },
        413,
        'WA_ERR_BODY_TOO_LARGE',
      ],
      [
        { to: groupJid, text: 'x', category: 'otp', metadata: { note: 'x'.repeat(20_000) } },
        422,
        'WA_ERR_METADATA_TOO_LARGE',
      ],
      [{ to: groupJid, text: 'x', category: 'newsletter' }, 422, 'WA_ERR_UNKNOWN_CATEGORY'],
      [{ to: 'not a recipient', text: 'x', category: 'otp' }, 422, 'WA_ERR_INVALID_RECIPIENT'],
      [{ to: otherGroup, text: 'x', category: 'otp' }, 422, 'WA_ERR_RECIPIENT_NOT_ALLOWED'],
      [{ to: leftGroup, text: 'x', category: 'otp' }, 422, 'WA_ERR_RECIPIENT_NOT_ALLOWED'],
      [{ to: '120363999999999999@g.us', text: 'x', category: 'otp' }, 422, 'WA_ERR_RECIPIENT_NOT_ALLOWED'],
      [{ to: '+55 11 99999-0001', text: 'x', category: 'otp' }, 422, 'WA_ERR_RECIPIENT_NOT_ALLOWED'],
      [{ text: 'x', category: 'otp' }, 422, 'WA_ERR_INVALID_BODY'],
      [
        { to: groupJid, text: 'x', category: 'transactional', deliverBy: new Date(Date.now() + 60_000).toISOString() },
        422,
        'WA_ERR_UNKNOWN_FIELD',
      ],
      [{ to: groupJid, text: 'x', category: 'otp', extra: 1 }, 422, 'WA_ERR_UNKNOWN_FIELD'],
    ];
    for (const [body, status, code] of cases) {
      const idempotencyKey = randomUUID();
      const response = await postMessage(server.url, apiKey.key, body, idempotencyKey);
      expect({ body, status: response.status, code: response.json['code'] }).toEqual({ body, status, code });
      const { rows } = await server.pool.query('SELECT 1 FROM outbound_messages WHERE idempotency_key = $1', [
        idempotencyKey,
      ]);
      expect(rows).toHaveLength(0);
    }
    const misspelt = await postMessage(
      server.url,
      apiKey.key,
      { to: groupJid, text: 'x', category: 'otp', deliverBy: '2030-01-01T00:00:00Z', extra: 1 },
      randomUUID()
    );
    expect(misspelt.json['fields']).toEqual([
      { field: 'deliverBy', message: 'unknown field' },
      { field: 'extra', message: 'unknown field' },
    ]);
    const freeMetadata = await postMessage(
      server.url,
      apiKey.key,
      { to: groupJid, text: 'x', category: 'otp', metadata: { anything: { nested: true } } },
      randomUUID()
    );
    expect(freeMetadata.status).toBe(202);
    const missingKey = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'x', category: 'otp' }, null);
    expect(missingKey.json['code']).toBe('WA_ERR_MISSING_IDEMPOTENCY_KEY');
  });

  it('accepts a number once it opted in for the account', async () => {
    const body = { to: '+55 11 99999-0002', text: 'your code is 123456', category: 'otp' };
    expect((await postMessage(server.url, apiKey.key, body)).status).toBe(422);
    await server.admin.addOptIn(apiKey.accountId, '5511999990002@s.whatsapp.net', null);
    const accepted = await postMessage(server.url, apiKey.key, body);
    expect(accepted.status).toBe(202);
    const { rows } = await server.pool.query<{ to_jid: string }>('SELECT to_jid FROM outbound_messages WHERE id = $1', [
      accepted.json['id'],
    ]);
    expect(rows[0]?.to_jid).toBe('5511999990002@s.whatsapp.net');
  });

  it('answers 404 for a message of another key', async () => {
    const accepted = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'mine', category: 'otp' });
    const other = await createTestApiKey(server.admin);
    const response = await getMessage(server.url, other.key, accepted.json['id'] as string);
    expect(response.status).toBe(404);
    expect(response.json['code']).toBe('WA_ERR_MESSAGE_NOT_FOUND');
  });
});

describe('POST /api/internal/send-transitions (signed, monotonic) and the send metrics', () => {
  /** A report signed as the worker's activity signs it, at `now` (ms) and for `path`. */
  function report(
    messageId: string,
    state: string,
    options: { secret?: string; now?: () => number } = {}
  ): Promise<Response> {
    const body = JSON.stringify({
      message_id: messageId,
      state,
      at: new Date().toISOString(),
      reason_code: null,
    });
    const target = {
      url: `${server.url}${SEND_TRANSITIONS_PATH}`,
      webhookSecret: options.secret ?? TEST_SECRET,
      httpTimeoutMs: 5_000,
      fetchImpl: fetch,
      ...(options.now ? { now: options.now } : {}),
    };
    return postSignedInternal(target, messageId, body);
  }

  /** What the worker's activity would send for a "prepare" call, captured instead of sent, then sent to `toPath`. */
  async function replayPrepareTo(messageId: string, state: string, toPath: string): Promise<Response> {
    let captured: RequestInit | undefined;
    const capture: typeof fetch = (_url, init) => {
      captured = init;
      return Promise.resolve(new Response('{}'));
    };
    const body = JSON.stringify({
      message_id: messageId,
      state,
      at: new Date().toISOString(),
      reason_code: null,
      sequence: 3,
    });
    const target = {
      url: `${server.url}${SEND_STATUS_WEBHOOKS_PATH}`,
      webhookSecret: TEST_SECRET,
      httpTimeoutMs: 5_000,
    };
    await postSignedInternal({ ...target, fetchImpl: capture }, messageId, body);
    return fetch(`${server.url}${toPath}`, { method: 'POST', headers: captured?.headers, body: captured?.body });
  }

  const stateOf = async (id: string): Promise<unknown> => (await getMessage(server.url, apiKey.key, id)).json['status'];

  it('records each state once, only forward, refuses a bad signature, and observes the latency', async () => {
    const accepted = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'tracked', category: 'otp' });
    const id = accepted.json['id'] as string;
    expect((await report(id, 'dispatched', { secret: 'another-secret-0123456789' })).status).toBe(401);
    expect(await (await report(id, 'delivered')).json()).toEqual({ changed: true });
    expect(await (await report(id, 'sent')).json()).toEqual({ changed: false });
    const status = await getMessage(server.url, apiKey.key, id);
    expect(status.json['status']).toBe('delivered');
    expect((status.json['transitions'] as Array<{ state: string }>).map((t) => t.state)).toEqual([
      'queued',
      'delivered',
      'sent',
    ]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/wa_send_state_latency_seconds_count\{state="delivered"\} 1/);
    expect(metrics).toMatch(/wa_send_accepted_total\{category="otp"\} \d+/);
  });

  it('refuses a captured "prepare" request replayed to send-transitions: the message stays queued (ADR 0022)', async () => {
    const accepted = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'replay', category: 'otp' });
    const id = accepted.json['id'] as string;
    const replayed = await replayPrepareTo(id, 'delivered', SEND_TRANSITIONS_PATH);
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ code: 'WA_ERR_BAD_SIGNATURE' });
    expect(await stateOf(id)).toBe('queued');
  });

  it('refuses a report signed 6 minutes ago and accepts a clock 4 minutes off either way', async () => {
    const accepted = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'skew', category: 'otp' });
    const id = accepted.json['id'] as string;
    const stale = await report(id, 'dispatched', { now: () => Date.now() - 6 * 60_000 });
    expect(stale.status).toBe(401);
    expect(await stale.json()).toMatchObject({ code: 'WA_ERR_STALE_SIGNATURE' });
    expect(await stateOf(id)).toBe('queued');
    const behind = await report(id, 'dispatched', { now: () => Date.now() - 4 * 60_000 });
    expect(await behind.json()).toEqual({ changed: true });
    const ahead = await report(id, 'sent', { now: () => Date.now() + 4 * 60_000 });
    expect(await ahead.json()).toEqual({ changed: true });
    expect(await stateOf(id)).toBe('sent');
  });

  it('refuses a report without X-Timestamp, as an unsigned call', async () => {
    const accepted = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'no ts', category: 'otp' });
    const id = accepted.json['id'] as string;
    const body = JSON.stringify({ message_id: id, state: 'sent', at: new Date().toISOString(), reason_code: null });
    const response = await fetch(`${server.url}${SEND_TRANSITIONS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-event-id': id, 'x-signature': 'a'.repeat(64) },
      body,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'WA_ERR_MISSING_SIGNATURE' });
  });
});

describe('POST /api/internal/send-starts (signed; ADR 0026 §6)', () => {
  it("answers a message's lake state to the worker's check, null for an unknown one, and refuses an unsigned call", async () => {
    const accepted = await postMessage(server.url, apiKey.key, { to: groupJid, text: 'start', category: 'otp' });
    const id = accepted.json['id'] as string;
    const checkSendStart = createCheckSendStart({
      webhookUrl: `${server.url}/api/webhooks/whatsapp`,
      webhookSecret: TEST_SECRET,
      httpTimeoutMs: 5_000,
    });
    expect(await checkSendStart({ messageId: id })).toEqual({ state: 'queued' });
    expect(await checkSendStart({ messageId: randomUUID() })).toEqual({ state: null });
    const unsigned = await fetch(`${server.url}${SEND_STARTS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-event-id': id, 'x-signature': 'a'.repeat(64) },
      body: JSON.stringify({ message_id: id }),
    });
    expect(unsigned.status).toBe(401);
  });
});
