import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type ConnectionError,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
} from 'fastify';
import pg from 'pg';
import type { Logger } from '../common/logger.js';
import type { PayloadEncryptionKeys } from '../common/payload-encryption-keys.js';
import { DEFAULT_INTERNAL_SIGNATURE_TOLERANCE_MS } from '../common/internal-signature.js';
import {
  DatabaseBusyError,
  DatabaseUnavailableError,
  type EventsRepository,
  type OutboundMessagesRepository,
  type StatusWebhookTargets,
} from '../lake/index.js';
import { limitConnectionsPerAddress } from './connection-guards.js';
import { IngestHttpError } from './errors.js';
import type { IngestMetrics } from './metrics.js';
import { DEFAULT_INGEST_REQUEST_LIMITS, installRequestGuards, type IngestRequestLimits } from './request-guards.js';
import { PROBLEM_JSON, problemLink, PUBLIC_API_PREFIX, toProblemDetails } from './problem-details.js';
import { registerHealthRoutes } from './routes/health-routes.js';
import { ingestSignedScope, registerIngestRoute } from './routes/ingest-route.js';
import { registerPublicApi } from './routes/openapi-route.js';
import { registerSendRoutes, type SendRouteDeps } from './routes/send-routes.js';
import { registerSendStartRoute } from './routes/send-start-route.js';
import { registerSendTransitionRoute } from './routes/send-transition-route.js';
import { registerSendStatusWebhookRoute } from './routes/send-status-webhook-route.js';
import { registerSignedScope } from './routes/signed-scope.js';
import { internalSignedScope } from './routes/verify-internal-request.js';
import type { TemporalReadiness } from './send/send-workflow-starter.js';

/** Seconds a client should wait before retrying when the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;
const UNCOUNTED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Dependencies of {@link buildApp}; the caller owns (and closes) the pool behind `repository`. */
export interface IngestAppDeps {
  webhookSecrets: readonly string[];
  /** `INTERNAL_SIGNATURE_TOLERANCE_MS` of the internal endpoints (ADR 0022); default 5 minutes. */
  internalSignatureToleranceMs?: number;
  /** Clock of the internal endpoints' timestamp check (ms); default `Date.now`. */
  now?: () => number;
  bodyLimitBytes: number;
  repository: Pick<EventsRepository, 'store' | 'ping'>;
  metrics: IngestMetrics;
  logger: Logger;
  /** Timeouts, connection and body limits, credential-failure and per-key rates (ADR 0014); default the production values. */
  limits?: IngestRequestLimits;
  /**
   * `INGEST_TRUST_PROXY`: addresses (or CIDR ranges) of reverse proxies whose `X-Forwarded-For` names the client
   * (Fastify `trustProxy`); the credential-failure limiter then counts the client's address, not the proxy's.
   * Absent or false: the TCP peer is the client (ADR 0014).
   */
  trustProxy?: false | readonly string[];
  /** Bearer token of `GET /metrics` (ADR 0014 decision 8); null or absent = open. */
  metricsToken?: string | null;
  /** Outbound send (architecture.md §12); the send routes exist only when given. */
  send?: SendRouteDeps & {
    messages: SendRouteDeps['messages'] & Pick<OutboundMessagesRepository, 'recordTransition'>;
    /** Whether the send starter reaches Temporal (`GET /readyz`, ADR 0028); always ready when absent. */
    temporalReadiness?: () => TemporalReadiness;
    /** Status webhooks (ADR 0011): targets and the keys that open their secrets; route absent without. */
    statusWebhooks?: {
      targets: Pick<StatusWebhookTargets, 'find' | 'recordOutcome'>;
      encryptionKeys: PayloadEncryptionKeys;
      /** `SEND_WEBHOOK_DISABLE_AFTER_MS`: failing this long disables an endpoint (ADR 0014 decision 8). */
      disableAfterMs?: number;
    };
  };
}

/**
 * Builds the ingest API's Fastify instance without listening (house style §1; tests use it over
 * real HTTP with `listen({ port: 0 })`). Every body arrives as a raw Buffer (`parseAs: 'buffer'`)
 * so the signature is checked over the exact bytes before parsing (architecture.md §8), by one hook per signed
 * prefix (`registerSignedScope`: `/api/webhooks/` and `/api/internal/`), never by a route itself. Every error answer
 * is JSON `{"error", "code"}` — never a redirect, whatever `Accept` says; 5xx hide internals. Under the public
 * API (`/api/v1/`) it is an RFC 9457 `application/problem+json` object that keeps `code` and `error`
 * (ADR 0015).
 */
export function buildApp(deps: IngestAppDeps): FastifyInstance {
  const loggerInstance: FastifyBaseLogger = deps.logger.child({ component: 'ingest-api' });
  const limits = deps.limits ?? DEFAULT_INGEST_REQUEST_LIMITS;
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    trustProxy: deps.trustProxy ? [...deps.trustProxy] : false,
    // ADR 0014: Fastify's default 72 s let one client's idle keep-alive connections hold every slot for that long.
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // ADR 0014: Fastify's default 0 let a slow body hold a connection (and its buffer) forever.
    requestTimeout: limits.requestTimeoutMs,
    // Node checks both timeouts every connectionsCheckingInterval (default 30 s): once a second is cheap.
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    return503OnClosing: false,
    clientErrorHandler: createClientErrorHandler(loggerInstance),
  });
  app.server.maxConnections = limits.maxConnections;
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress);
  const apiKeys = deps.send?.apiKeys;
  const isActiveApiKey = apiKeys ? async (key: string) => (await apiKeys.find(key)) !== null : undefined;
  const sendKeyQuota = installRequestGuards(app, limits, deps.bodyLimitBytes, isActiveApiKey);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const mapped = toHttpError(err);
    // A busy pool is handled backpressure (the sender retries after Retry-After); the rest needs a human.
    if (mapped.code === 'WA_ERR_DATABASE_BUSY') request.log.warn({ err, code: mapped.code }, 'request failed');
    else if (mapped.statusCode >= 500) request.log.error({ err, code: mapped.code }, 'request failed');
    if (mapped.statusCode === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    void reply.headers(mapped.headers);
    if (request.url.startsWith(PUBLIC_API_PREFIX)) {
      return reply
        .code(mapped.statusCode)
        .type(PROBLEM_JSON)
        .header('link', problemLink(mapped.code))
        .send(toProblemDetails(mapped));
    }
    const body = mapped.fields
      ? { error: mapped.message, code: mapped.code, fields: mapped.fields }
      : { error: mapped.message, code: mapped.code };
    return reply.code(mapped.statusCode).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const notFound = new IngestHttpError('WA_ERR_NOT_FOUND', 'no such route');
    if (request.url.startsWith(PUBLIC_API_PREFIX)) {
      return reply
        .code(404)
        .type(PROBLEM_JSON)
        .header('link', problemLink(notFound.code))
        .send(toProblemDetails(notFound));
    }
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ error: notFound.message, code: notFound.code });
  });
  app.addHook('onResponse', async (request, reply) => {
    // The matched route, not `request.url`: probes with a query string (`/healthz?probe=1`) stay uncounted.
    // Unmatched requests (404) have no route and are counted.
    const route = request.routeOptions.url;
    if (route === undefined || !UNCOUNTED_PATHS.has(route)) {
      deps.metrics.requests.inc({ status: String(reply.statusCode) });
    }
  });
  registerSignedScope(app, ingestSignedScope(deps.webhookSecrets), (scope) => registerIngestRoute(scope, deps));
  const internalSignature = {
    webhookSecrets: deps.webhookSecrets,
    toleranceMs: deps.internalSignatureToleranceMs ?? DEFAULT_INTERNAL_SIGNATURE_TOLERANCE_MS,
    ...(deps.now ? { now: deps.now } : {}),
  };
  registerSignedScope(app, internalSignedScope(internalSignature), (scope) => {
    if (!deps.send) return;
    registerSendTransitionRoute(scope, { messages: deps.send.messages, metrics: deps.send.metrics });
    registerSendStartRoute(scope, { messages: deps.send.messages });
    if (deps.send.statusWebhooks) {
      registerSendStatusWebhookRoute(scope, { ...deps.send.statusWebhooks, ...(deps.now ? { now: deps.now } : {}) });
    }
  });
  registerHealthRoutes(app, { ...deps, temporalReadiness: deps.send?.temporalReadiness });
  const send = deps.send ? { ...deps.send, quota: sendKeyQuota } : undefined;
  registerPublicApi(app, (instance) => {
    if (send) registerSendRoutes(instance, send);
  });
  return app;
}

// PostgreSQL refused the content itself (data exception / program limit): a 4xx the sender dead-letters.
const CONTENT_SQLSTATE = /^(22|54)/;

/** Maps any thrown error to the answer of architecture.md §8 (catalogue in README.md). */
export function toHttpError(err: unknown): IngestHttpError {
  if (err instanceof IngestHttpError) return err;
  if (err instanceof DatabaseUnavailableError)
    return new IngestHttpError('WA_ERR_DATABASE_UNAVAILABLE', 'database unavailable, retry later');
  if (err instanceof DatabaseBusyError)
    return new IngestHttpError('WA_ERR_DATABASE_BUSY', 'database busy, retry later');
  if (err instanceof pg.DatabaseError && CONTENT_SQLSTATE.test(err.code ?? '')) {
    return new IngestHttpError('WA_ERR_UNSTORABLE_PAYLOAD', 'payload cannot be stored');
  }
  const statusCode = (err as { statusCode?: unknown }).statusCode;
  if (statusCode === 413) return new IngestHttpError('WA_ERR_BODY_TOO_LARGE', 'body is larger than the limit');
  if (statusCode === 415)
    return new IngestHttpError('WA_ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return new IngestHttpError('WA_ERR_BAD_REQUEST', 'malformed request');
  return new IngestHttpError('WA_ERR_INTERNAL', 'internal error');
}

/**
 * Chooses the answer to a request that Node's HTTP parser rejected before Fastify saw it (README "Error
 * codes", architecture.md §8: every error body carries a `code`). Same status split as Node's own handler.
 *
 * @param nodeErrorCode - `code` of the `clientError` event's error: `ERR_HTTP_REQUEST_TIMEOUT` → 408
 *   `WA_ERR_REQUEST_TIMEOUT`, `HPE_HEADER_OVERFLOW` → 431 `WA_ERR_HEADERS_TOO_LARGE`, anything else
 *   (`HPE_INVALID_METHOD`, `HPE_INVALID_CONTENT_LENGTH`, …) → 400 `WA_ERR_BAD_REQUEST`.
 */
export function toClientErrorAnswer(nodeErrorCode: string | undefined): IngestHttpError {
  if (nodeErrorCode === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new IngestHttpError('WA_ERR_REQUEST_TIMEOUT', 'request timeout');
  if (nodeErrorCode === 'HPE_HEADER_OVERFLOW')
    return new IngestHttpError('WA_ERR_HEADERS_TOO_LARGE', 'request headers too large');
  return new IngestHttpError('WA_ERR_BAD_REQUEST', 'malformed request');
}

/**
 * Formats `answer` as a complete raw HTTP/1.1 response: JSON body `{"error", "code"}`,
 * `Content-Type: application/json; charset=utf-8`, `Content-Length` in bytes and `Connection: close`
 * (the parser cannot resume on this connection).
 */
export function formatClientErrorResponse(answer: IngestHttpError): string {
  const body = JSON.stringify({ error: answer.message, code: answer.code });
  return [
    `HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: answers malformed HTTP as JSON, then closes the socket. */
function createClientErrorHandler(log: FastifyBaseLogger): (err: ConnectionError, socket: Socket) => void {
  return (err, socket) => {
    // The peer is gone (Node has destroyed the socket already): nothing to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const answer = toClientErrorAnswer(err.code);
    // Only the codes: the error's `rawPacket` holds the request bytes (headers, message text).
    log.debug({ parserCode: err.code, code: answer.code }, 'malformed request rejected');
    if (!canAnswer(socket)) {
      socket.destroy();
      return;
    }
    // Destroyed once flushed: `end` alone would leave the half-open socket to the client.
    socket.end(formatClientErrorResponse(answer), () => socket.destroy());
  };
}

// Like Node's default handler: no answer on a socket that cannot take one, nor while a response of a
// keep-alive request is already on the wire there (a second status line would corrupt it). `_httpMessage`
// is Node's link from the socket to its in-flight response.
function canAnswer(socket: Socket): boolean {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return socket.writable && inFlight?.headersSent !== true;
}
