/**
 * What one POST attempt produced, as seen by the HTTP client: a response (any status, redirects are
 * never followed so a 3xx arrives here), a client-side timeout, or a network error (refused, reset, DNS).
 */
export type DeliveryAttemptOutcome =
  | { kind: 'response'; status: number; retryAfter?: string | null }
  | { kind: 'timeout' }
  | { kind: 'network_error'; code?: string };

/** Why a transient outcome is transient (for logs and failure messages). */
export type TransientReason =
  'server_error' | 'throttled' | 'request_timeout' | 'too_early' | 'unexpected_status' | 'timeout' | 'network_error';

/**
 * Closed union of delivery classes (architecture.md §7 table). Every outcome maps to exactly one:
 * - `delivered`: 2xx, the row is committed;
 * - `rejected`: 400, 413, 415, 422 and every other 4xx not listed below; this event can never succeed;
 * - `unauthorized`: 401, 403; the whole endpoint refuses our secret;
 * - `misconfigured`: 3xx (never followed), 404, 405, 410; the whole endpoint is wrong;
 * - `transient`: 408, 425, 429, 5xx, timeout, network error, and statuses outside 200–599 (1xx, garbage).
 */
export type DeliveryClass =
  | { kind: 'delivered'; status: number }
  | { kind: 'rejected'; status: number }
  | { kind: 'unauthorized'; status: number }
  | { kind: 'misconfigured'; status: number; isRedirect: boolean }
  | { kind: 'transient'; status: number | null; reason: TransientReason; retryAfterMs: number | null };

/** Upper bound on an honoured `Retry-After`, so a broken header cannot park an event for weeks. */
export const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1_000;

const MISCONFIGURED_STATUSES = new Set([404, 405, 410]);
const UNAUTHORIZED_STATUSES = new Set([401, 403]);
const TRANSIENT_4XX: ReadonlyMap<number, TransientReason> = new Map([
  [408, 'request_timeout'],
  [425, 'too_early'],
  [429, 'throttled'],
]);

/**
 * Parses a `Retry-After` header: delay-seconds (`"120"`) or an HTTP-date. Negative or past values
 * become 0; values are capped at {@link MAX_RETRY_AFTER_MS}.
 *
 * @param value - the raw header value, or null/undefined when absent.
 * @param nowMs - current time in epoch milliseconds (for the HTTP-date form).
 * @returns the delay in milliseconds, or null when absent or unparsable.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  if (value == null) return null;
  const trimmed = value.trim();
  if (trimmed.length === 0) return null;
  let delayMs: number;
  if (/^\d+$/.test(trimmed)) {
    delayMs = Number(trimmed) * 1_000;
  } else {
    // An HTTP-date always has a day or month name; this keeps `-5` or `2026` from parsing as years.
    if (!/[a-z]/i.test(trimmed)) return null;
    const dateMs = Date.parse(trimmed);
    if (Number.isNaN(dateMs)) return null;
    delayMs = dateMs - nowMs;
  }
  return Math.min(Math.max(delayMs, 0), MAX_RETRY_AFTER_MS);
}

/**
 * Classifies one delivery attempt per the architecture.md §7 table. Pure: no I/O, no clock (pass `nowMs`).
 * Source: architecture.md §7, ADR 0002.
 *
 * @param outcome - the attempt's response status (plus `Retry-After`), timeout or network error.
 * @param nowMs - epoch milliseconds, used only to turn an HTTP-date `Retry-After` into a delay.
 * @returns exactly one {@link DeliveryClass}.
 */
export function classifyDeliveryResponse(outcome: DeliveryAttemptOutcome, nowMs: number): DeliveryClass {
  if (outcome.kind === 'timeout') return { kind: 'transient', status: null, reason: 'timeout', retryAfterMs: null };
  if (outcome.kind === 'network_error')
    return { kind: 'transient', status: null, reason: 'network_error', retryAfterMs: null };
  const { status } = outcome;
  const retryAfterMs = parseRetryAfterMs(outcome.retryAfter, nowMs);
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    return { kind: 'transient', status, reason: 'unexpected_status', retryAfterMs };
  }
  if (status < 300) return { kind: 'delivered', status };
  if (status < 400) return { kind: 'misconfigured', status, isRedirect: true };
  if (status >= 500) return { kind: 'transient', status, reason: 'server_error', retryAfterMs };
  if (UNAUTHORIZED_STATUSES.has(status)) return { kind: 'unauthorized', status };
  if (MISCONFIGURED_STATUSES.has(status)) return { kind: 'misconfigured', status, isRedirect: false };
  const transientReason = TRANSIENT_4XX.get(status);
  if (transientReason) return { kind: 'transient', status, reason: transientReason, retryAfterMs };
  return { kind: 'rejected', status };
}
