import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EVENT_ID_HEADER, INGEST_PATH, SIGNATURE_HEADER } from '../../common/ingest-body.js';
import type { EventsRepository } from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import type { IngestMetrics } from '../metrics.js';
import { parseIngestBody } from '../parse-ingest-body.js';
import { isSignatureValid } from '../signature.js';
import { isUuidText } from '../../common/uuid-text.js';

/** What the ingest route needs. */
export interface IngestRouteDeps {
  webhookSecrets: readonly string[];
  bodyLimitBytes: number;
  repository: Pick<EventsRepository, 'store'>;
  metrics: IngestMetrics;
}

function readHeader(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return typeof value === 'string' ? value : '';
}

/**
 * Registers `POST /api/webhooks/whatsapp` with the checks of architecture.md §8 in order: headers present
 * (401, before the body is read), signature over the raw bytes (401), event id (400), size (413, by
 * the body parser), media type (415), JSON (400), fields (422); then stores and answers 201 stored or
 * 200 duplicate with `Idempotent-Replayed: true`, only after COMMIT.
 */
export function registerIngestRoute(app: FastifyInstance, deps: IngestRouteDeps): void {
  app.post(INGEST_PATH, {
    bodyLimit: deps.bodyLimitBytes,
    onRequest: (request, _reply, done) => {
      if (readHeader(request, SIGNATURE_HEADER) === '' || readHeader(request, EVENT_ID_HEADER) === '') {
        done(new IngestHttpError('WA_ERR_MISSING_SIGNATURE', 'X-Signature and X-Event-Id headers are required'));
        return;
      }
      done();
    },
    handler: async (request, reply) => {
      const receivedAt = new Date();
      const eventId = readHeader(request, EVENT_ID_HEADER);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!isSignatureValid(deps.webhookSecrets, eventId, raw, readHeader(request, SIGNATURE_HEADER))) {
        throw new IngestHttpError('WA_ERR_BAD_SIGNATURE', 'signature does not match the body');
      }
      if (!isUuidText(eventId)) throw new IngestHttpError('WA_ERR_INVALID_EVENT_ID', 'X-Event-Id must be a UUID');
      const body = parseIngestBody(raw, request.headers['content-type']);
      const stopTimer = deps.metrics.insertDuration.startTimer();
      const outcome = await deps.repository.store(eventId.toLowerCase(), body, receivedAt);
      stopTimer();
      if (outcome.status === 'duplicate') {
        deps.metrics.duplicates.inc();
        request.log.debug({ eventId }, 'duplicate event');
        return reply.code(200).header('idempotent-replayed', 'true').send({ status: 'duplicate' });
      }
      if (body.isSanitized) deps.metrics.sanitized.inc();
      if (outcome.isProjectionFailed) deps.metrics.projectionErrors.inc();
      request.log.debug({ eventId, type: body.type, sanitized: body.isSanitized }, 'event stored');
      return reply.code(201).send({ status: 'stored' });
    },
  });
}
