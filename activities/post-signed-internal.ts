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
 * POSTs `body` (JSON text) to one of the ingest API's internal endpoints, signed like a lake delivery: HMAC
 * over `${idempotencyKey}.${body}` (architecture.md §7), the key in `X-Event-Id`, no redirects followed.
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
    headers: {
      'content-type': 'application/json',
      [EVENT_ID_HEADER]: idempotencyKey,
      [SIGNATURE_HEADER]: computeSignature(target.webhookSecret, idempotencyKey, body),
    },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(target.httpTimeoutMs),
  });
}
