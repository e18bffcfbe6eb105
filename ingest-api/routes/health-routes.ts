import type { FastifyInstance } from 'fastify';
import type { EventsRepository } from '../../lake/index.js';
import type { IngestMetrics } from '../metrics.js';

/**
 * Registers `GET /healthz` (process up), `GET /readyz` (database reachable, else 503 through the error
 * handler) and `GET /metrics` (Prometheus text of the app's own registry). Source: architecture.md §8.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: { repository: Pick<EventsRepository, 'ping'>; metrics: IngestMetrics }
): void {
  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async () => {
    await deps.repository.ping();
    return { status: 'ready' };
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}
