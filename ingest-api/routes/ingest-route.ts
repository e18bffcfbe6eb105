import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EVENT_ID_HEADER, INGEST_PATH, SIGNATURE_HEADER } from '../../common/ingest-body.js';
import type { EventsRepository } from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import type { IngestMetrics } from '../metrics.js';
import { parseIngestBody } from '../parse-ingest-body.js';
import { isSignatureValid } from '../signature.js';
import { isUuidText } from '../../common/uuid-text.js';
import { signedCallOf, type SignedScope } from './signed-scope.js';

/** What the ingest route needs. */
export interface IngestRouteDeps {
  bodyLimitBytes: number;
  repository: Pick<EventsRepository, 'store'>;
  metrics: IngestMetrics;
}

function readHeader(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return typeof value === 'string' ? value : '';
}

/** The prefix of the signed ingest route; all of it is signed with the ingest scheme. */
export const WEBHOOKS_PREFIX = '/api/webhooks/';

/**
 * The signed scope of {@link WEBHOOKS_PREFIX} (architecture.md §8): `X-Signature` and `X-Event-Id` present
 * before the body is read, then `hex(HMAC-SHA256(secret, eventId + "." + rawBody))` over the raw bytes.
 *
 * @throws IngestHttpError `WA_ERR_MISSING_SIGNATURE` (a header missing or empty), `WA_ERR_BAD_SIGNATURE`.
 */
export function ingestSignedScope(webhookSecrets: readonly string[]): SignedScope {
  return {
    prefix: WEBHOOKS_PREFIX,
    checkHeaders: (request) => {
      if (readHeader(request, SIGNATURE_HEADER) === '' || readHeader(request, EVENT_ID_HEADER) === '') {
        throw new IngestHttpError('WA_ERR_MISSING_SIGNATURE', 'X-Signature and X-Event-Id headers are required');
      }
    },
    verify: (request) => {
      const id = readHeader(request, EVENT_ID_HEADER);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!isSignatureValid(webhookSecrets, id, raw, readHeader(request, SIGNATURE_HEADER))) {
        throw new IngestHttpError('WA_ERR_BAD_SIGNATURE', 'signature does not match the body');
      }
      return { id, raw };
    },
  };
}

/**
 * Registers `POST /api/webhooks/whatsapp` inside {@link ingestSignedScope}, with the checks of architecture.md §8
 * in order: headers present (401, before the body is read) and signature over the raw bytes (401), both by the
 * scope's hooks; event id (400), size (413, by the body parser), media type (415), JSON (400), fields (422);
 * then stores and answers 201 stored or 200 duplicate with `Idempotent-Replayed: true`, only after COMMIT.
 */
export function registerIngestRoute(app: FastifyInstance, deps: IngestRouteDeps): void {
  app.post(INGEST_PATH, {
    bodyLimit: deps.bodyLimitBytes,
    handler: async (request, reply) => {
      const receivedAt = new Date();
      const { id: eventId, raw } = signedCallOf(request);
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
