/**
 * Error codes of the ingest API (architecture.md §8; catalogue in ingest-api/README.md). Stable: the
 * collector's operators and dashboards read them.
 */
export const INGEST_ERROR_CODES = {
  WA_ERR_MISSING_SIGNATURE: 401,
  WA_ERR_BAD_SIGNATURE: 401,
  /** An internal call whose signed timestamp is outside the tolerance (ADR 0022). */
  WA_ERR_STALE_SIGNATURE: 401,
  WA_ERR_METRICS_UNAUTHORIZED: 401,
  WA_ERR_INVALID_EVENT_ID: 400,
  WA_ERR_BODY_TOO_LARGE: 413,
  WA_ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  WA_ERR_INVALID_JSON: 400,
  WA_ERR_BAD_REQUEST: 400,
  WA_ERR_REQUEST_TIMEOUT: 408,
  WA_ERR_HEADERS_TOO_LARGE: 431,
  WA_ERR_INVALID_BODY: 422,
  WA_ERR_UNSTORABLE_PAYLOAD: 422,
  WA_ERR_NOT_FOUND: 404,
  WA_ERR_DATABASE_UNAVAILABLE: 503,
  WA_ERR_DATABASE_BUSY: 503,
  /** `GET /readyz` while the send starter cannot reach Temporal (ADR 0028). */
  WA_ERR_TEMPORAL_UNAVAILABLE: 503,
  WA_ERR_INTERNAL: 500,
  // Outbound send (architecture.md §12, ADR 0009).
  WA_ERR_BAD_API_KEY: 401,
  WA_ERR_MISSING_IDEMPOTENCY_KEY: 400,
  WA_ERR_INVALID_IDEMPOTENCY_KEY: 400,
  WA_ERR_IDEMPOTENCY_MISMATCH: 422,
  WA_ERR_UNKNOWN_CATEGORY: 422,
  WA_ERR_TEXT_TOO_LONG: 422,
  WA_ERR_DELIVER_BY_PASSED: 422,
  WA_ERR_INVALID_RECIPIENT: 422,
  WA_ERR_RECIPIENT_NOT_ALLOWED: 422,
  WA_ERR_MESSAGE_NOT_FOUND: 404,
  WA_ERR_UNKNOWN_FIELD: 422,
  // A send body whose value JavaScript would change (ADR 0014 decision 4).
  WA_ERR_UNREPRESENTABLE_JSON: 422,
  // Request guards (ADR 0014).
  WA_ERR_TOO_MANY_AUTH_FAILURES: 429,
  WA_ERR_SEND_RATE_LIMITED: 429,
  // Send contract (ADR 0015).
  WA_ERR_QUOTA_EXCEEDED: 429,
  WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  WA_ERR_IDEMPOTENCY_KEY_EXPIRED: 422,
  WA_ERR_NOT_A_TEST_RECIPIENT: 403,
  WA_ERR_ACCOUNT_NOT_APPROVED: 403,
  WA_ERR_TEMPLATE_NOT_FOUND: 422,
  WA_ERR_TEMPLATE_NOT_APPROVED: 422,
  WA_ERR_TEMPLATE_VARIABLE_MISSING: 422,
  WA_ERR_TEMPLATE_VARIABLE_UNKNOWN: 422,
  // Bounds of a send request (ADR 0017): a deadline a workflow can wait for, metadata a row can carry.
  WA_ERR_DELIVER_BY_TOO_FAR: 422,
  WA_ERR_METADATA_TOO_LARGE: 422,
} as const;

/** One of the codes in {@link INGEST_ERROR_CODES}. */
export type IngestErrorCode = keyof typeof INGEST_ERROR_CODES;

/** One invalid field of a 422 answer. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * Thrown by request handling for any answer that is not 2xx; the error handler turns it into
 * `{"error": message, "code": code, "fields"?: [...]}` with `statusCode` (architecture.md §8).
 */
export class IngestHttpError extends Error {
  override readonly name = 'IngestHttpError';
  readonly statusCode: number;
  /** Extra response headers (lower-case names), e.g. `retry-after` and the RateLimit fields of a 429. */
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    readonly code: IngestErrorCode,
    message: string,
    readonly fields?: FieldError[],
    options?: { cause?: unknown; headers?: Record<string, string> }
  ) {
    super(message, options);
    this.statusCode = INGEST_ERROR_CODES[code];
    this.headers = options?.headers ?? {};
  }
}

/**
 * Thrown while routes are registered (a programming error, so start-up fails) when a route and a signed prefix's
 * scope disagree: a route under the prefix registered outside the scope, or a route of the scope outside the
 * prefix (architecture.md §8, `routes/signed-scope.ts`).
 */
export class SignedScopeRouteError extends Error {
  override readonly name = 'SignedScopeRouteError';
  constructor(
    readonly url: string,
    readonly prefix: string
  ) {
    super(`route ${url} and the signed scope of ${prefix} disagree: register it inside that scope, under that prefix`);
  }
}
