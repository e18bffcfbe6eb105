import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptDeliveryPost, RESPONSE_EXCERPT_MAX_CHARS } from '../../../activities/attempt-delivery-post.js';

// The one HTTP attempt behind lake delivery and send status webhooks, against a real local HTTP server.
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Starts a server answering every request with `answer` (or never, when it is null); returns its URL. */
async function serve(
  answer: { status: number; headers?: Record<string, string>; body: string } | null
): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    if (answer === null) return;
    response.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`;
}

const request = (url: string): { url: string; headers: Record<string, string>; body: string } => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{}',
});

describe('attemptDeliveryPost', () => {
  it('reports the status, Retry-After, headers and the first 1 000 characters of the body', async () => {
    const url = await serve({
      status: 503,
      headers: { 'retry-after': '7', 'idempotent-replayed': 'true' },
      body: 'x'.repeat(5_000),
    });
    const attempt = await attemptDeliveryPost(request(url), { timeoutMs: 5_000 });
    expect(attempt.outcome).toEqual({ kind: 'response', status: 503, retryAfter: '7' });
    expect(attempt.responseExcerpt).toBe('x'.repeat(RESPONSE_EXCERPT_MAX_CHARS));
    expect(attempt.responseHeaders?.get('idempotent-replayed')).toBe('true');
  });

  it('reports a redirect as its status without following it', async () => {
    const url = await serve({ status: 307, headers: { location: '/elsewhere' }, body: '' });
    expect((await attemptDeliveryPost(request(url), { timeoutMs: 5_000 })).outcome).toMatchObject({ status: 307 });
  });

  it('reports a refused connection as a network error with its code, and keeps the error as cause', async () => {
    const url = await serve(null);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const attempt = await attemptDeliveryPost(request(url), { timeoutMs: 5_000 });
    expect(attempt.outcome).toEqual({ kind: 'network_error', code: 'ECONNREFUSED' });
    expect(attempt.cause).toBeInstanceOf(Error);
    expect(attempt.responseHeaders).toBeNull();
  });

  it('reports a server that never answers as a timeout, but throws when the cancellation fired', async () => {
    const url = await serve(null);
    expect((await attemptDeliveryPost(request(url), { timeoutMs: 200 })).outcome).toEqual({ kind: 'timeout' });
    const cancellation = new AbortController();
    const cancelled = attemptDeliveryPost(request(url), { timeoutMs: 60_000, cancellation: cancellation.signal });
    cancellation.abort();
    await expect(cancelled).rejects.toThrow();
  });
});
