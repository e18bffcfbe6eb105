import { ApplicationFailure } from '@temporalio/activity';
import type { IngestFailureDetails } from '../workflows/contracts.js';
import type { DeliveryClass } from './classify-delivery-response.js';

/** A failed delivery class (everything but `delivered`). */
export type FailedDeliveryClass = Exclude<DeliveryClass, { kind: 'delivered' }>;

/** `ApplicationFailure.type` per failed class, and the failure message of each (one target: ingest, or a status webhook). */
export type DeliveryFailureTypes = Readonly<Record<FailedDeliveryClass['kind'], string>>;

/**
 * Maps a classified failed attempt to the `ApplicationFailure` its workflow branches on, the same way for
 * lake delivery and status webhooks (architecture.md §7, §12; ADR 0011): `rejected` is non-retryable
 * (→ dead-letter); `unauthorized` and `misconfigured` are non-retryable for the activity only (the
 * workflow alerts and retries in its own loop); `transient` is retryable, with `Retry-After` as
 * `nextRetryDelay`. `details[0]` is {@link IngestFailureDetails}.
 *
 * @param message - the failure's human message (names the target and the status).
 */
export function toDeliveryFailure(
  types: DeliveryFailureTypes,
  verdict: FailedDeliveryClass,
  details: IngestFailureDetails,
  message: string,
  cause?: unknown
): ApplicationFailure {
  return ApplicationFailure.create({
    type: types[verdict.kind],
    message,
    nonRetryable: verdict.kind !== 'transient',
    details: [details],
    nextRetryDelay: verdict.kind === 'transient' ? (verdict.retryAfterMs ?? undefined) : undefined,
    cause: verdict.kind === 'transient' && cause instanceof Error ? cause : undefined,
  });
}
