import type { FastifyReply } from 'fastify';
import { IngestHttpError } from '../errors.js';
import { IDEMPOTENCY_KEY_TTL_MS } from './idempotency-key.js';

/**
 * The answer to a repeated Idempotency-Key (draft-ietf-httpapi-idempotency-key-header §2.6, ADR 0030): the first
 * answer again, status 202 and body `{id, status: 'queued'}` as the request that created the message got it,
 * marked `Idempotent-Replayed: true`.
 * @throws IngestHttpError `WA_ERR_IDEMPOTENCY_KEY_EXPIRED` (422) when the key is older than 24 h,
 *   `WA_ERR_IDEMPOTENCY_MISMATCH` (422) when the body differs.
 */
export function answerReplay(
  reply: FastifyReply,
  existing: { id: string; requestHash: string; createdAt: Date },
  requestHash: string
): FastifyReply {
  if (Date.now() - existing.createdAt.getTime() > IDEMPOTENCY_KEY_TTL_MS) {
    throw new IngestHttpError(
      'WA_ERR_IDEMPOTENCY_KEY_EXPIRED',
      'this Idempotency-Key was first used more than 24 hours ago; nothing was sent: use a new key'
    );
  }
  if (existing.requestHash !== requestHash) {
    throw new IngestHttpError(
      'WA_ERR_IDEMPOTENCY_MISMATCH',
      'this Idempotency-Key was already used with a different body'
    );
  }
  return reply.code(202).header('idempotent-replayed', 'true').send(acceptedBody(existing.id));
}

/** The body of a 202, first answer and replay alike: the state at acceptance, which `GET` then follows. */
export function acceptedBody(id: string): { id: string; status: 'queued' } {
  return { id, status: 'queued' };
}
