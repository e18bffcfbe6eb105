import { createHmac } from 'node:crypto';

/** Header carrying the signing time of an internal call: Unix seconds, as Standard Webhooks' `webhook-timestamp`. */
export const TIMESTAMP_HEADER = 'x-timestamp';
/** Default tolerance of the ingest API for an internal call's timestamp, either way (Standard Webhooks: 5 minutes). */
export const DEFAULT_INTERNAL_SIGNATURE_TOLERANCE_MS = 5 * 60_000;
// Sets the internal string apart from the lake delivery's `${eventId}.${body}`: one can never pass for the other.
const SCHEME = 'wa-lake-internal-v1';

/** What an internal call's signature covers (ADR 0022). */
export interface InternalSigningParts {
  /** HTTP method, upper case (`POST`). */
  method: string;
  /** Path of the endpoint as registered (`/api/internal/send-transitions`), no query string. */
  path: string;
  /** The `X-Event-Id` header (the message id of a send call). */
  id: string;
  /** The `X-Timestamp` header: decimal Unix seconds. */
  timestamp: string;
  rawBody: string | Buffer;
}

/**
 * The exact bytes signed for one call to an internal endpoint of the ingest API (architecture.md §8, ADR 0022):
 * `wa-lake-internal-v1.${METHOD}.${path}.${id}.${timestamp}.` followed by the body bytes unchanged. The method,
 * the path and the time are signed, so a captured request replayed later or to another endpoint fails. Shared by
 * the worker's activities (signer) and the ingest API (verifier).
 */
export function buildInternalSigningInput(parts: InternalSigningParts): Buffer {
  const body = typeof parts.rawBody === 'string' ? Buffer.from(parts.rawBody, 'utf8') : parts.rawBody;
  const head = `${SCHEME}.${parts.method.toUpperCase()}.${parts.path}.${parts.id}.${parts.timestamp}.`;
  return Buffer.concat([Buffer.from(head, 'utf8'), body]);
}

/** `X-Signature` of an internal call: lower-case hex HMAC-SHA256 of {@link buildInternalSigningInput}. */
export function computeInternalSignature(secret: string, parts: InternalSigningParts): string {
  return createHmac('sha256', secret).update(buildInternalSigningInput(parts)).digest('hex');
}
