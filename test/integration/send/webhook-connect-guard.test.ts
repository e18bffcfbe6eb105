import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptDeliveryPost,
  RESPONSE_BODY_MAX_BYTES,
  RESPONSE_EXCERPT_MAX_CHARS,
} from '../../../activities/attempt-delivery-post.js';
import { createGuardedWebhookFetch, WEBHOOK_ADDRESS_FORBIDDEN_CODE } from '../../../common/guarded-webhook-fetch.js';
import type { ResolveAll } from '../../../common/webhook-url-policy.js';

/** A DNS that maps the test names as a hostile resolver would (rebinding to loopback), real sockets after it. */
const resolveAll: ResolveAll = (hostname) => {
  const table: Record<string, string[]> = {
    'hooks.rebind.test': ['127.0.0.1'],
    'mixed.rebind.test': ['93.184.215.14', '127.0.0.1'],
  };
  const addresses = table[hostname];
  return addresses
    ? Promise.resolve(addresses.map((address) => ({ address, family: 4 })))
    : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
};

const HUGE_BODY_BYTES = 50 * 1024 * 1024;
let server: Server;
let port: number;
const requests: string[] = [];
let hugeBodyBytesWritten = 0;
let hugeBodySocketClosed: Promise<void>;

beforeAll(async () => {
  let markClosed: () => void = () => undefined;
  hugeBodySocketClosed = new Promise((resolve) => (markClosed = resolve));
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url !== '/huge') {
      response.end('ok');
      return;
    }
    // A 400 answer far larger than anything the worker should hold: written until the client hangs up.
    response.writeHead(400, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const writeMore = (): void => {
      while (hugeBodyBytesWritten < HUGE_BODY_BYTES && !response.destroyed) {
        hugeBodyBytesWritten += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', writeMore);
      }
      response.end();
    };
    response.socket?.once('close', markClosed);
    writeMore();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (url: string, fetchImpl: typeof fetch) =>
  attemptDeliveryPost(
    { url, headers: { 'content-type': 'application/json' }, body: '{}' },
    { timeoutMs: 10_000, fetchImpl }
  );

describe('status webhook connections (ADR 0014)', () => {
  it('refuses, after DNS, a name that resolves to 127.0.0.1, and sends nothing', async () => {
    const guarded = createGuardedWebhookFetch({ allowHttp: true, allowPrivate: false }, { resolveAll });
    const before = requests.length;
    const attempt = await post(`http://hooks.rebind.test:${port}/rebind`, guarded);
    expect(attempt.outcome).toEqual({ kind: 'network_error', code: WEBHOOK_ADDRESS_FORBIDDEN_CODE });
    expect(String((attempt.cause as Error).cause)).toContain('resolves to 127.0.0.1 (loopback)');
    const mixed = await post(`http://mixed.rebind.test:${port}/mixed`, guarded);
    expect(mixed.outcome).toEqual({ kind: 'network_error', code: WEBHOOK_ADDRESS_FORBIDDEN_CODE });
    const literal = await post(`http://127.0.0.1:${port}/literal`, guarded);
    expect(literal.outcome).toEqual({ kind: 'network_error', code: WEBHOOK_ADDRESS_FORBIDDEN_CODE });
    expect(requests.length).toBe(before);
  });

  it('reaches a local receiver when SEND_WEBHOOK_ALLOW_PRIVATE allows it', async () => {
    const guarded = createGuardedWebhookFetch({ allowHttp: true, allowPrivate: true }, { resolveAll });
    const attempt = await post(`http://localhost:${port}/allowed`, guarded);
    expect(attempt.outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(requests).toContain('/allowed');
  });

  it('reads at most 64 KiB of a 50 MB answer and closes the connection', async () => {
    const guarded = createGuardedWebhookFetch({ allowHttp: true, allowPrivate: true }, { resolveAll });
    const attempt = await post(`http://127.0.0.1:${port}/huge`, guarded);
    expect(attempt.outcome).toMatchObject({ kind: 'response', status: 400 });
    expect(attempt.responseExcerpt).toBe('x'.repeat(RESPONSE_EXCERPT_MAX_CHARS));
    await hugeBodySocketClosed;
    // The server could write ahead into socket buffers, never the whole answer.
    expect(hugeBodyBytesWritten).toBeLessThan(HUGE_BODY_BYTES);
    expect(RESPONSE_BODY_MAX_BYTES).toBe(64 * 1024);
  });
});
