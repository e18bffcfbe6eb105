import { computeSignature } from '../common/hmac-signature.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../common/ingest-body.js';

/** Where and how the worker reaches the ingest API's signed internal endpoints. */
export interface SignedInternalTarget {
  /** Absolute URL of the endpoint. */
  url: string;
  /** Internal signing secret (the first of `WHATSAPP_WEBHOOK_SECRET`). */
  webhookSecret: string;
  /** Client timeout, in ms (`HTTP_TIMEOUT_MS`). */
  httpTimeoutMs: number;
  fetchImpl: typeof fetch;
}

/**
 * The headers of a signed POST to the ingest API (architecture.md §7): `Content-Type: application/json`, the
 * idempotency key in `X-Event-Id` and `X-Signature` = HMAC over `${idempotencyKey}.${body}`. Lake
 * deliveries and the internal endpoints are signed alike.
 */
export function signedIngestHeaders(
  webhookSecret: string,
  idempotencyKey: string,
  body: string
): Record<string, string> {
  return {
    'content-type': 'application/json',
    [EVENT_ID_HEADER]: idempotencyKey,
    [SIGNATURE_HEADER]: computeSignature(webhookSecret, idempotencyKey, body),
  };
}

/**
 * POSTs `body` (JSON text) to one of the ingest API's internal endpoints, signed like a lake delivery
 * ({@link signedIngestHeaders}), no redirects followed.
 * The caller reads (or cancels) the response body and classifies the status.
 *
 * @throws whatever `fetch` throws: a network error, or a `TimeoutError` after `httpTimeoutMs`.
 */
export function postSignedInternal(
  target: SignedInternalTarget,
  idempotencyKey: string,
  body: string
): Promise<Response> {
  return target.fetchImpl(target.url, {
    method: 'POST',
    headers: signedIngestHeaders(target.webhookSecret, idempotencyKey, body),
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(target.httpTimeoutMs),
  });
}
