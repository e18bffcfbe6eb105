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

  it('never refuses a valid API key from an address blocked for failed guesses (the limiter counts failures only)', async () => {
    const { key } = await createTestApiKey(server.admin, { self: [SELF] });
    const guesses = [];
    for (let i = 0; i < 6; i += 1) guesses.push((await postMessage(server.url, `wa_guess_${i}`, sendBody('g'))).status);
    expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await postMessage(server.url, key, sendBody('genuine'))).status).toBe(202);
    expect((await postMessage(server.url, 'wa_guess_7', sendBody('g'))).status).toBe(429);
  });

  it('counts failures per client address behind a trusted proxy (INGEST_TRUST_PROXY), and ignores X-Forwarded-For otherwise', async () => {
    const behindProxy = await startSendTestServer(inject('databaseUrl'), {
      env: { INGEST_AUTH_FAILURES_MAX: '5', INGEST_TRUST_PROXY: '127.0.0.1' },
    });
    const guess = (url: string, client: string) =>
      fetch(`${url}/api/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': `wa_guess_${randomUUID()}`,
          'idempotency-key': randomUUID(),
          'x-forwarded-for': client,
        },
        body: JSON.stringify(sendBody('g')),
      }).then((response) => response.status);
    try {
      const flood = [];
      for (let i = 0; i < 6; i += 1) flood.push(await guess(behindProxy.url, '203.0.113.7'));
      expect(flood).toEqual([401, 401, 401, 401, 401, 429]);
      // Another client behind the same proxy is not blocked by the first one's guesses.
      expect(await guess(behindProxy.url, '203.0.113.8')).toBe(401);
    } finally {
      await behindProxy.close();
    }
    // Without INGEST_TRUST_PROXY (the default) the header is the client's word: the TCP peer is counted.
    const direct = [];
    for (let i = 0; i < 6; i += 1) direct.push(await guess(server.url, `203.0.113.${i + 10}`));
    expect(direct).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('serves a new client while 255 idle keep-alive connections from one address sit open', async () => {
    // 255 slots in all: without a share per address the flood alone would fill them and lock the next client out.
    const defaults = await startSendTestServer(inject('databaseUrl'), { env: { INGEST_MAX_CONNECTIONS: '255' } });
    const { hostname, port } = new URL(defaults.url);
    /** A connection from `localAddress` that sends one keep-alive GET /healthz; resolves with its status or null. */
    const healthz = (localAddress: string, held: Socket[]): Promise<number | null> =>
      new Promise((resolve) => {
        const socket = connect({ host: hostname, port: Number(port), localAddress }, () =>
          socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
        );
        held.push(socket);
        socket.once('data', (chunk) => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString())?.[1] ?? 0)));
        socket.once('error', () => resolve(null));
        socket.once('close', () => resolve(null));
      });
    const held: Socket[] = [];
    try {
      const flood = await Promise.all(Array.from({ length: 255 }, () => healthz('127.0.0.1', held)));
      // INGEST_MAX_CONNECTIONS_PER_ADDRESS (128): the rest of one address's connections are closed at accept.
      expect(flood.filter((status) => status === 200)).toHaveLength(128);
      expect(await healthz('127.0.0.2', held)).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
      await defaults.close();
    }
  });

  it('closes an idle keep-alive connection after INGEST_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const short = await startSendTestServer(inject('databaseUrl'), { env: { INGEST_KEEP_ALIVE_TIMEOUT_MS: '200' } });
    const { hostname, port } = new URL(short.url);
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
    );
    try {
      const answered = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())));
      expect(await answered).toMatch(/^HTTP\/1\.1 200/);
      expect(await answered).toMatch(/keep-alive/i);
      // The server, not the client, ends the idle connection.
      await new Promise<void>((resolve) => socket.once('end', () => resolve()));
      expect(socket.readableEnded).toBe(true);
    } finally {
      socket.destroy();
      await short.close();
    }
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
