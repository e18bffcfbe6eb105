import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { SEND_TRANSITIONS_PATH } from '../../../common/send-transition-report.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import {
  createTestApiKey,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';
import { messageBody, postSigned, sendRawHttp } from '../../helpers/ingest-test-server.js';

const SELF = '100000000000098@lid';
let server: SendTestServer;
let groupJid: string;

// A fresh server per test: the limiters count per client address, and every test connects from 127.0.0.1.
beforeEach(async () => {
  server = await startSendTestServer(inject('databaseUrl'), {
    env: {
      INGEST_REQUEST_TIMEOUT_MS: '2000',
      INGEST_HEADERS_TIMEOUT_MS: '1000',
      INGEST_MAX_CONNECTIONS: '8',
      INGEST_AUTH_FAILURES_MAX: '5',
      SEND_API_KEY_REQUESTS_MAX: '3',
    },
  });
  groupJid = await seedGroup(server.pool, [SELF]);
});
afterEach(() => server.close());

const sendBody = (text: string) => ({ to: groupJid, text, category: 'transactional' });

async function postRaw(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('request guards of the ingest port (ADR 0014)', () => {
  it('answers 408 and closes a connection whose body never completes (slow body)', async () => {
    const eventId = randomUUID();
    const answer = await sendRawHttp(
      server.url,
      `POST /api/webhooks/whatsapp HTTP/1.1\r\nHost: x\r\nX-Event-Id: ${eventId}\r\nX-Signature: sha256=00\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type":'
    );
    expect(answer.status).toBe(408);
  });

  it('refuses bodies over the per-route limit before parsing; the signed ingest route keeps its 4 MiB', async () => {
    const big = JSON.stringify({ ...sendBody('x'), metadata: { pad: 'p'.repeat(100 * 1024) } });
    const send = await postRaw('/api/v1/messages', big, { 'x-api-key': 'wa_nope' });
    expect(send).toMatchObject({ status: 413, json: { code: 'WA_ERR_BODY_TOO_LARGE' } });
    const internal = await postRaw(SEND_TRANSITIONS_PATH, big, { 'x-event-id': randomUUID(), 'x-signature': 'x' });
    expect(internal).toMatchObject({ status: 413, json: { code: 'WA_ERR_BODY_TOO_LARGE' } });
    const event = await postSigned(server.url, messageBody({ padding: 'x'.repeat(200 * 1024) }), {
      secret: TEST_SECRET,
    });
    expect(event.status).toBe(201);
  });

  it('throttles failed API-key checks per address with 429 + Retry-After, and signed deliveries still pass', async () => {
    const guesses = [];
    for (let i = 0; i < 5; i += 1) guesses.push(await postMessage(server.url, `wa_guess_${i}`, sendBody('g')));
    expect(guesses.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
    const response = await fetch(`${server.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'wa_guess_6', 'idempotency-key': randomUUID() },
      body: JSON.stringify(sendBody('g')),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    // An error of the public API: RFC 9457 problem details with the code kept (ADR 0015).
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toMatchObject({
      type: '/api/v1/problems/WA_ERR_TOO_MANY_AUTH_FAILURES',
      status: 429,
      code: 'WA_ERR_TOO_MANY_AUTH_FAILURES',
    });
    // Failures are counted per kind of credential: the flood does not block signed lake deliveries.
    expect((await postSigned(server.url, messageBody(), { secret: TEST_SECRET })).status).toBe(201);
  });

  it('throttles failed signatures per address, yet never refuses a request whose signature verifies', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await postSigned(server.url, messageBody(), { secret: 'wrong' })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // ADR 0028: the genuine worker shares the flooded address; its signed deliveries still go through.
    expect((await postSigned(server.url, messageBody(), { secret: TEST_SECRET })).status).toBe(201);
    const blocked = await postSigned(server.url, messageBody(), { secret: 'wrong' });
    expect(blocked.status).toBe(429);
    expect(blocked.json).toMatchObject({ code: 'WA_ERR_TOO_MANY_AUTH_FAILURES' });
  });

  it('limits accepted sends per key with 429 + Retry-After; another key is unaffected', async () => {
    const first = await createTestApiKey(server.admin, { self: [SELF] });
    const second = await createTestApiKey(server.admin, { self: [SELF], accountId: first.accountId });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await postMessage(server.url, first.key, sendBody(`m${i}`))).status);
    expect(statuses).toEqual([202, 202, 202]);
    const response = await fetch(`${server.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': first.key, 'idempotency-key': randomUUID() },
      body: JSON.stringify(sendBody('m4')),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.json()).toMatchObject({ code: 'WA_ERR_SEND_RATE_LIMITED' });
    expect((await postMessage(server.url, second.key, sendBody('other key'))).status).toBe(202);
  });

  it('closes connections beyond INGEST_MAX_CONNECTIONS at once', async () => {
    const { hostname, port } = new URL(server.url);
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
        socket.on('error', reject);
      });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 8; i += 1) held.push(await open());
      const connections = () =>
        new Promise<number>((resolve) => server.app.server.getConnections((_err, count) => resolve(count)));
      await expect.poll(connections, { timeout: 10_000 }).toBe(8);
      const extra = await open();
      held.push(extra);
      await new Promise<void>((resolve) => extra.once('close', () => resolve()));
      expect(extra.destroyed).toBe(true);
      expect(held.slice(0, 8).every((socket) => !socket.destroyed)).toBe(true);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
