import type { FastifyRequest } from 'fastify';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../../common/ingest-body.js';
import { TIMESTAMP_HEADER } from '../../common/internal-signature.js';
import { IngestHttpError } from '../errors.js';
import { checkInternalSignature } from '../signature.js';
import type { SignedCall, SignedScope } from './signed-scope.js';

/** The prefix of the internal endpoints the worker and the collector call (ADR 0022); all of it is signed. */
export const INTERNAL_API_PREFIX = '/api/internal/';

/** What the internal routes verify their callers with. */
export interface InternalSignatureDeps {
  webhookSecrets: readonly string[];
  /** `INTERNAL_SIGNATURE_TOLERANCE_MS`: how far the signed timestamp may be from now, either way. */
  toleranceMs: number;
  /** Clock in ms; default `Date.now`. */
  now?: () => number;
}

function readHeader(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return typeof value === 'string' ? value : '';
}

/**
 * Verifies a call to the internal endpoint registered at `path` before its body is parsed (ADR 0022):
 * `X-Event-Id`, `X-Timestamp` and `X-Signature` over `POST`, `path`, id, timestamp and the raw bytes.
 *
 * @returns the `X-Event-Id` and the raw body.
 * @throws IngestHttpError `WA_ERR_MISSING_SIGNATURE` (a header missing), `WA_ERR_BAD_SIGNATURE` (no secret
 *   signed this method, path, time and body), `WA_ERR_STALE_SIGNATURE` (authentic, outside the tolerance).
 */
export function verifyInternalRequest(request: FastifyRequest, path: string, deps: InternalSignatureDeps): SignedCall {
  const id = readHeader(request, EVENT_ID_HEADER);
  const timestamp = readHeader(request, TIMESTAMP_HEADER);
  const signature = readHeader(request, SIGNATURE_HEADER);
  if (id === '' || timestamp === '' || signature === '') {
    throw new IngestHttpError('WA_ERR_MISSING_SIGNATURE', 'X-Event-Id, X-Timestamp and X-Signature are required');
  }
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const verdict = checkInternalSignature(
    deps.webhookSecrets,
    { method: request.method, path, id, timestamp, rawBody: raw },
    signature,
    { nowMs: (deps.now ?? Date.now)(), toleranceMs: deps.toleranceMs }
  );
  if (verdict === 'bad_signature') {
    throw new IngestHttpError('WA_ERR_BAD_SIGNATURE', 'signature does not match this endpoint, time and body');
  }
  if (verdict === 'stale') {
    throw new IngestHttpError('WA_ERR_STALE_SIGNATURE', 'signed timestamp is outside the tolerance');
  }
  return { id, raw };
}

/** The signed scope of {@link INTERNAL_API_PREFIX}: every route there is checked by {@link verifyInternalRequest}. */
export function internalSignedScope(deps: InternalSignatureDeps): SignedScope {
  return { prefix: INTERNAL_API_PREFIX, verify: (request, path) => verifyInternalRequest(request, path, deps) };
}
