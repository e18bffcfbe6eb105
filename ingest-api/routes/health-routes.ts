import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EventsRepository } from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import type { IngestMetrics } from '../metrics.js';
import type { TemporalReadiness } from '../send/send-workflow-starter.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time over digests. */
function hasBearerToken(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const presented = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
  return timingSafeEqual(digest(presented), digest(token));
}

/**
 * Registers `GET /healthz` (process up), `GET /readyz` (database reachable, and the send starter reaching
 * Temporal when it has failed to (ADR 0028), else 503 through the error handler) and `GET /metrics` (Prometheus text of the app's own registry). Source: architecture.md §8. With
 * `metricsToken`, `/metrics` answers 401 without `Authorization: Bearer <token>` (ADR 0014 decision 8): the port
 * also serves the public send API, and the metrics name keys, accounts and volumes.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: {
    repository: Pick<EventsRepository, 'ping'>;
    metrics: IngestMetrics;
    metricsToken?: string | null;
    temporalReadiness?: (() => TemporalReadiness) | undefined;
  }
): void {
  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async () => {
    await deps.repository.ping();
    const temporal = deps.temporalReadiness?.() ?? { isReady: true };
    if (!temporal.isReady) throw new IngestHttpError('WA_ERR_TEMPORAL_UNAVAILABLE', temporal.reason);
    return { status: 'ready' };
  });
  app.get('/metrics', async (request, reply) => {
    const token = deps.metricsToken;
    if (token && !hasBearerToken(request, token)) {
      throw new IngestHttpError(
        'WA_ERR_METRICS_UNAUTHORIZED',
        'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
        undefined,
        {
          headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        }
      );
    }
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}
