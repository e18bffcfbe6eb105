import type { ReadableStreamDefaultReader } from 'node:stream/web';
import { withoutUrlCredentials } from '../common/redact-url-credentials.js';
import type { DeliveryAttemptOutcome } from './classify-delivery-response.js';

/** How many characters of a response body an attempt keeps, for failure details and duplicate detection. */
export const RESPONSE_EXCERPT_MAX_CHARS = 1_000;

/**
 * How many bytes of a response body an attempt reads at most (ADR 0014): past it the body is
 * cancelled, which closes the connection, so a 400 MB answer costs 64 KiB of memory, not 800 MB.
 */
export const RESPONSE_BODY_MAX_BYTES = 64 * 1024;

/** One POST to make: absolute URL, headers (name → value) and the exact body text. */
export interface DeliveryPostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How one attempt is bounded and made. */
export interface DeliveryPostOptions {
  /** Client timeout of the attempt in ms, response body included. */
  timeoutMs: number;
  /** The activity's cancellation signal: when it fires, the attempt throws instead of reporting an outcome. */
  cancellation?: AbortSignal;
  /** Injectable `fetch` (tests); defaults to the global one. */
  fetchImpl?: typeof fetch;
}

/** What one attempt produced, ready for `classifyDeliveryResponse`. */
export interface DeliveryPostAttempt {
  outcome: DeliveryAttemptOutcome;
  /** The first {@link RESPONSE_EXCERPT_MAX_CHARS} characters of the response body; '' without a response or
   * when the body could not be read. */
  responseExcerpt: string;
  /** The response's headers (e.g. `idempotent-replayed`); null without a response. */
  responseHeaders: Headers | null;
  /** The error behind a timeout or a network error, to keep as the failure's cause. */
  cause?: unknown;
}

/**
 * Reads at most {@link RESPONSE_BODY_MAX_BYTES} of a body and cancels the rest; a body that breaks off
 * only shortens the excerpt.
 * @returns the first {@link RESPONSE_EXCERPT_MAX_CHARS} characters of what was read ('' on a read error).
 */
export async function readResponseExcerpt(response: Response): Promise<string> {
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < RESPONSE_BODY_MAX_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } catch {
    // The status is the outcome; keep what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks, total).subarray(0, RESPONSE_BODY_MAX_BYTES);
  return new TextDecoder().decode(bytes).slice(0, RESPONSE_EXCERPT_MAX_CHARS);
}

function networkErrorCode(err: unknown): string | undefined {
  return err instanceof Error && err.cause instanceof Error ? (err.cause as NodeJS.ErrnoException).code : undefined;
}

/**
 * Makes one timed POST attempt of a delivery (lake events and send status webhooks, architecture.md §7):
 * redirects are never followed (a 3xx is an outcome), the timeout and the cancellation signal both abort
 * it, and whatever happened becomes a {@link DeliveryAttemptOutcome}: a response (status, `Retry-After`),
 * a client-side timeout, or a network error (with its errno code, e.g. `ECONNREFUSED`).
 *
 * @returns the outcome, the response excerpt and headers, and the error behind a failed attempt.
 * @throws the abort error when `cancellation` fired: the SDK reports the cancellation, not a delivery failure.
 */
export async function attemptDeliveryPost(
  request: DeliveryPostRequest,
  options: DeliveryPostOptions
): Promise<DeliveryPostAttempt> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const cancellation = options.cancellation;
  let response: Response;
  try {
    response = await (options.fetchImpl ?? fetch)(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: cancellation ? AbortSignal.any([timeout, cancellation]) : timeout,
    });
  } catch (err) {
    if (cancellation?.aborted) throw err;
    // The cause becomes part of the failure in the history: never with a URL's credentials (ADR 0022).
    const cause = withoutUrlCredentials(err);
    if (timeout.aborted) return { outcome: { kind: 'timeout' }, responseExcerpt: '', responseHeaders: null, cause };
    const outcome: DeliveryAttemptOutcome = { kind: 'network_error', code: networkErrorCode(err) };
    return { outcome, responseExcerpt: '', responseHeaders: null, cause };
  }
  const responseExcerpt = await readResponseExcerpt(response);
  return {
    outcome: { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') },
    responseExcerpt,
    responseHeaders: response.headers,
  };
}
