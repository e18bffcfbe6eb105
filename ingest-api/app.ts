import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import pg from 'pg';
import type { Logger } from '../common/logger.js';
import type { EventsRepository } from './db/events-repository.js';
import { DatabaseUnavailableError } from './db/errors.js';
import { IngestHttpError } from './errors.js';
import type { IngestMetrics } from './metrics.js';
import { registerHealthRoutes } from './routes/health-routes.js';
import { registerIngestRoute } from './routes/ingest-route.js';

/** Seconds a client should wait before retrying when the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;
const UNCOUNTED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Dependencies of {@link buildApp}; the caller owns (and closes) the pool behind `repository`. */
export interface IngestAppDeps {
  webhookSecrets: readonly string[];
  bodyLimitBytes: number;
  repository: Pick<EventsRepository, 'store' | 'ping'>;
  metrics: IngestMetrics;
  logger: Logger;
}

/**
 * Builds the ingest API's Fastify instance without listening (house style §1; tests use it over
 * real HTTP with `listen({ port: 0 })`). Every body arrives as a raw Buffer (`parseAs: 'buffer'`)
 * so the signature is checked over the exact bytes before parsing (DESIGN §8). Every error answer
 * is JSON `{"error", "code"}` — never a redirect, whatever `Accept` says; 5xx hide internals.
 */
export function buildApp(deps: IngestAppDeps): FastifyInstance {
  const loggerInstance: FastifyBaseLogger = deps.logger.child({ component: 'ingest-api' });
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    return503OnClosing: false,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const mapped = toHttpError(err);
    if (mapped.statusCode >= 500) request.log.error({ err, code: mapped.code }, 'request failed');
    if (mapped.statusCode === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    const body = mapped.fields
      ? { error: mapped.message, code: mapped.code, fields: mapped.fields }
      : { error: mapped.message, code: mapped.code };
    return reply.code(mapped.statusCode).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).type('application/json; charset=utf-8').send({ error: 'no such route', code: 'WA_ERR_NOT_FOUND' })
  );
  app.addHook('onResponse', async (request, reply) => {
    if (!UNCOUNTED_PATHS.has(request.url)) deps.metrics.requests.inc({ status: String(reply.statusCode) });
  });
  registerIngestRoute(app, deps);
  registerHealthRoutes(app, deps);
  return app;
}

// PostgreSQL refused the content itself (data exception / program limit): a 4xx the sender dead-letters.
const CONTENT_SQLSTATE = /^(22|54)/;

/** Maps any thrown error to the answer of DESIGN §8 (catalogue in README.md). */
export function toHttpError(err: unknown): IngestHttpError {
  if (err instanceof IngestHttpError) return err;
  if (err instanceof DatabaseUnavailableError)
    return new IngestHttpError('WA_ERR_DATABASE_UNAVAILABLE', 'database unavailable, retry later');
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
