/**
 * Named errors of the activities folder (house style §4). Across the activity → workflow boundary they
 * travel as `ApplicationFailure`s whose `type` is the class name, listed in `workflows/contracts.ts`
 * `FailureType`; these classes exist for code outside Temporal (tests, logs) and for their `name`s.
 */

/** Thrown (as ApplicationFailure `IngestRejectedError`) when the ingest rejects this one event (400/413/415/422/other 4xx). */
export class IngestRejectedError extends Error {
  override readonly name = 'IngestRejectedError';
  constructor(
    readonly eventId: string,
    readonly status: number
  ) {
    super(`ingest rejected event with HTTP ${status}`);
  }
}

/** Thrown (as ApplicationFailure `IngestUnauthorizedError`) when the ingest refuses our signature (401/403). */
export class IngestUnauthorizedError extends Error {
  override readonly name = 'IngestUnauthorizedError';
  constructor(
    readonly eventId: string,
    readonly status: number
  ) {
    super(`ingest refused the signature with HTTP ${status}`);
  }
}

/** Thrown (as ApplicationFailure `IngestMisconfiguredError`) when `WEBHOOK_URL` points at the wrong place (3xx/404/405/410). */
export class IngestMisconfiguredError extends Error {
  override readonly name = 'IngestMisconfiguredError';
  constructor(
    readonly eventId: string,
    readonly status: number
  ) {
    super(`ingest endpoint looks misconfigured: HTTP ${status}`);
  }
}

/** Thrown (as retryable ApplicationFailure `IngestTransientError`) for 408/425/429/5xx, timeouts and network errors. */
export class IngestTransientError extends Error {
  override readonly name = 'IngestTransientError';
  constructor(
    readonly eventId: string,
    readonly status: number | null,
    readonly reason: string,
    options?: { cause?: unknown }
  ) {
    super(`transient delivery failure: ${reason}${status === null ? '' : ` (HTTP ${status})`}`, options);
  }
}
