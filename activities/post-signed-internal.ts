import { computeSignature } from '../common/hmac-signature.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../common/ingest-body.js';
import { computeInternalSignature, TIMESTAMP_HEADER } from '../common/internal-signature.js';
import { withoutUrlCredentials } from '../common/redact-url-credentials.js';

/** Where and how the worker reaches the ingest API's signed internal endpoints. */
export interface SignedInternalTarget {
  /** Absolute URL of the endpoint. */
  url: string;
  /** Internal signing secret (the first of `WHATSAPP_WEBHOOK_SECRET`). */
  webhookSecret: string;
  /** Client timeout, in ms (`HTTP_TIMEOUT_MS`). */
  httpTimeoutMs: number;
  fetchImpl: typeof fetch;
  /** Clock of the signing time (ms); default `Date.now`. */
  now?: () => number;
}

/**
 * The headers of a signed lake delivery (architecture.md §7): `Content-Type: application/json`, the
 * idempotency key in `X-Event-Id` and `X-Signature` = HMAC over `${idempotencyKey}.${body}` (the first
 * collector's contract). The internal endpoints sign more: {@link postSignedInternal}.
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
 * POSTs `body` (JSON text) to one of the ingest API's internal endpoints, no redirects followed: `X-Event-Id`,
 * `X-Timestamp` (now, Unix seconds) and `X-Signature` over method, path, id, timestamp and body
 * (`computeInternalSignature`, ADR 0022), so the ingest API refuses it when replayed late or elsewhere.
 * The caller reads (or cancels) the response body and classifies the status.
 *
 * @throws whatever `fetch` throws (URL credentials redacted): a network error, or a `TimeoutError` after `httpTimeoutMs`.
 */
export function postSignedInternal(
  target: SignedInternalTarget,
  idempotencyKey: string,
  body: string
): Promise<Response> {
  const timestamp = String(Math.floor((target.now ?? Date.now)() / 1000));
  const signature = computeInternalSignature(target.webhookSecret, {
    method: 'POST',
    path: new URL(target.url).pathname,
    id: idempotencyKey,
    timestamp,
    rawBody: body,
  });
  return target
    .fetchImpl(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [EVENT_ID_HEADER]: idempotencyKey,
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signature,
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(target.httpTimeoutMs),
    })
    .catch((err: unknown) => {
      // The error becomes the activity's failure in the history: never with a URL's credentials (ADR 0022).
      throw withoutUrlCredentials(err);
    });
}
