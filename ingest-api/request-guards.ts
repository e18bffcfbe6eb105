import { setTimeout as delay } from 'node:timers/promises';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify';
import { INGEST_PATH } from '../common/ingest-body.js';
import { IngestHttpError, type IngestErrorCode } from './errors.js';
import { PROBLEM_JSON, problemLink, PUBLIC_API_PREFIX, toProblemDetails } from './problem-details.js';
import { SEND_MESSAGES_PATH, type SendKeyQuota } from './routes/send-routes.js';
import { INTERNAL_API_PREFIX } from './routes/verify-internal-request.js';

/**
 * What one request may cost before it is authenticated, and what one key may send (ADR 0014,
 * ADR 0014). Durations in ms, sizes in bytes.
 */
export interface IngestRequestLimits {
  /** `INGEST_REQUEST_TIMEOUT_MS`: the whole request (headers and body) must arrive within it (408). */
  requestTimeoutMs: number;
  /** `INGEST_HEADERS_TIMEOUT_MS`: the headers must arrive within it (408); below `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** `INGEST_MAX_CONNECTIONS`: open sockets at once; more are closed at accept. */
  maxConnections: number;
  /** `INGEST_MAX_CONNECTIONS_PER_ADDRESS`: open sockets of one client address; more are closed at accept. */
  maxConnectionsPerAddress: number;
  /** `INGEST_KEEP_ALIVE_TIMEOUT_MS`: an idle keep-alive connection is closed after this long (Fastify's default: 72 s). */
  keepAliveTimeoutMs: number;
  /** `SEND_BODY_LIMIT_BYTES`: body limit of the send API and the internal signed routes (413 before parsing). */
  sendBodyLimitBytes: number;
  /** `INGEST_AUTH_FAILURES_MAX`: failed signature or API-key checks per client address and window. */
  authFailuresMax: number;
  /** `INGEST_AUTH_FAILURE_WINDOW_MS`: the window of `authFailuresMax`. */
  authFailureWindowMs: number;
  /** `SEND_API_KEY_REQUESTS_MAX`: authenticated `POST /api/v1/messages` per key and window (429 beyond). */
  sendKeyRequestsMax: number;
  /** `SEND_API_KEY_WINDOW_MS`: the window of `sendKeyRequestsMax`. */
  sendKeyWindowMs: number;
}

/** The production defaults (also what `loadIngestConfig` gives without the keys). */
export const DEFAULT_INGEST_REQUEST_LIMITS: IngestRequestLimits = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 128,
  keepAliveTimeoutMs: 5_000,
  sendBodyLimitBytes: 64 * 1024,
  authFailuresMax: 20,
  authFailureWindowMs: 60_000,
  sendKeyRequestsMax: 120,
  sendKeyWindowMs: 60_000,
});

/** Body limit of routes that take no body (health, metrics, GET of a message). */
const NO_BODY_LIMIT_BYTES = 1024;

/** Which credential a route checks: failures are counted per address and per kind. */
type CredentialKind = 'signature' | 'api-key';

function credentialKindOf(url: string): CredentialKind | null {
  if (url === INGEST_PATH || url.startsWith(INTERNAL_API_PREFIX)) return 'signature';
  if (url.startsWith(SEND_MESSAGES_PATH)) return 'api-key';
  return null;
}

/** How long a blocked address waits for its 429 (ADR 0014). */
const BLOCKED_ANSWER_DELAY_MS = 1_000;
const TOO_MANY_AUTH_FAILURES: IngestErrorCode = 'WA_ERR_TOO_MANY_AUTH_FAILURES';
const TOO_MANY_AUTH_FAILURES_MESSAGE = 'too many failed credential checks from this address';
const TOO_MANY_AUTH_FAILURES_BODY = JSON.stringify({
  error: TOO_MANY_AUTH_FAILURES_MESSAGE,
  code: TOO_MANY_AUTH_FAILURES,
});
// The public API answers every error as RFC 9457 problem details (ADR 0015), this one included.
const TOO_MANY_AUTH_FAILURES_PROBLEM = JSON.stringify(
  toProblemDetails(new IngestHttpError(TOO_MANY_AUTH_FAILURES, TOO_MANY_AUTH_FAILURES_MESSAGE))
);

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

function tooMany(reply: FastifyReply, ttlMs: number, error: IngestHttpError): IngestHttpError {
  void reply.header('retry-after', String(Math.max(1, Math.ceil(ttlMs / 1000))));
  return error;
}

function appendOnRequest(route: RouteOptions, hook: onRequestAsyncHookHandler): void {
  const existing = route.onRequest;
  route.onRequest = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
}

/**
 * Installs the request guards of ADR 0014 on `app` (call before any route is registered):
 * - per-route body limits, applied by Fastify before any parsing: the signed ingest route keeps
 *   `ingestBodyLimitBytes` (the contract, architecture.md §8), the send API and internal routes get
 *   `sendBodyLimitBytes`, every other route 1 KiB;
 * - `@fastify/rate-limit` on failed credential checks: each 401 of a signed route or of the send API
 *   counts against the client address (per kind, so a key-guessing flood does not block signed
 *   deliveries); past `authFailuresMax` in a window the address gets 429 `WA_ERR_TOO_MANY_AUTH_FAILURES`
 *   with `Retry-After` — for an API key in the `onRequest` stage, before its body is read, once the presented key
 *   was looked up (`isActiveApiKey`, the key cache: a hash and, for a key not cached, one indexed read) and found
 *   unknown; for a signature in place of the 401 of a signature that fails. Either way a request whose credential
 *   is right is never refused by this limiter: the genuine client may share the address of whoever failed
 *   (ADR 0028).
 *
 * @returns the per-key quota the send route applies after authentication (429 `WA_ERR_SEND_RATE_LIMITED`).
 */
export function installRequestGuards(
  app: FastifyInstance,
  limits: IngestRequestLimits,
  ingestBodyLimitBytes: number,
  isActiveApiKey?: (presentedKey: string) => Promise<boolean>
): SendKeyQuota {
  void app.register(rateLimit, { global: false });
  const failures = new Map<CredentialKind, Limiter>();
  let sendKeyLimiter: Limiter | undefined;
  app.addHook('onReady', (done) => {
    for (const kind of ['signature', 'api-key'] as const) {
      failures.set(
        kind,
        app.createRateLimit({
          max: limits.authFailuresMax,
          timeWindow: limits.authFailureWindowMs,
          keyGenerator: (request) => `${kind}:${normalizeIP(request.ip)}`,
        })
      );
    }
    sendKeyLimiter = app.createRateLimit({
      max: limits.sendKeyRequestsMax,
      timeWindow: limits.sendKeyWindowMs,
      keyGenerator: (request) => `send-key:${sendKeyIds.get(request) ?? ''}`,
    });
    done();
  });
  const sendKeyIds = new WeakMap<FastifyRequest, string>();
  /** Signed requests from a blocked address, with the block's remaining ms: a 401 of theirs becomes the 429. */
  const blockedSignatures = new WeakMap<FastifyRequest, number>();
  app.addHook('onRoute', (route) => {
    const kind = credentialKindOf(route.url);
    route.bodyLimit ??=
      route.url === INGEST_PATH
        ? ingestBodyLimitBytes
        : kind === null || route.method === 'GET'
          ? NO_BODY_LIMIT_BYTES
          : limits.sendBodyLimitBytes;
    if (kind === null) return;
    const isPublic = route.url.startsWith(PUBLIC_API_PREFIX);
    appendOnRequest(route, async (request, reply) => {
      // A peek: the address is blocked once its failures reached the maximum in this window.
      const status = await failures.get(kind)?.(request, { increment: false });
      if (status !== undefined && !status.isAllowed && status.remaining <= 0 && kind === 'signature') {
        // A signature is checked over the body, so a signed route lets a blocked address's request run: one whose
        // signature verifies is answered as ever (the genuine worker shares its address with whoever failed,
        // ADR 0028), one that fails gets the 429 instead of its 401 (`onSend` below).
        blockedSignatures.set(request, status.ttl);
        return undefined;
      }
      if (status !== undefined && !status.isAllowed && status.remaining <= 0) {
        // A valid key passes (the limiter counts failures only); a wrong or missing one gets the 429.
        const presented = request.headers['x-api-key'];
        if (typeof presented === 'string' && (await isActiveApiKey?.(presented)) === true) return undefined;
        // Held for a second, then answered with a prebuilt body: a client that waits for each answer (a
        // keep-alive flood) is slowed to one guess per second per connection, at the cost of a timer.
        await delay(BLOCKED_ANSWER_DELAY_MS);
        return reply
          .code(429)
          .header('retry-after', String(Math.max(1, Math.ceil(status.ttl / 1000))))
          .type(isPublic ? PROBLEM_JSON : 'application/json; charset=utf-8')
          .headers(isPublic ? { link: problemLink('WA_ERR_TOO_MANY_AUTH_FAILURES') } : {})
          .send(isPublic ? TOO_MANY_AUTH_FAILURES_PROBLEM : TOO_MANY_AUTH_FAILURES_BODY);
      }
      return undefined;
    });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const ttlMs = blockedSignatures.get(request);
    if (ttlMs === undefined || reply.statusCode !== 401) return payload;
    await delay(BLOCKED_ANSWER_DELAY_MS);
    void reply
      .code(429)
      .header('retry-after', String(Math.max(1, Math.ceil(ttlMs / 1000))))
      .type('application/json; charset=utf-8');
    return TOO_MANY_AUTH_FAILURES_BODY;
  });
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 401) return;
    const kind = credentialKindOf(request.routeOptions.url ?? '');
    if (kind !== null) await failures.get(kind)?.(request);
  });
  return async (request, reply, apiKeyId) => {
    sendKeyIds.set(request, apiKeyId);
    const status = await sendKeyLimiter?.(request);
    if (status !== undefined && !status.isAllowed && status.isExceeded) {
      throw tooMany(
        reply,
        status.ttl,
        new IngestHttpError('WA_ERR_SEND_RATE_LIMITED', 'this API key sent too many requests; retry later')
      );
    }
  };
}
