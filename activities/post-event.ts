import type { ApplicationFailure } from '@temporalio/activity';
import { Context, log } from '@temporalio/activity';
import { FailureType, POST_EVENT_HEARTBEAT_INTERVAL_MS } from '../workflows/contracts.js';
import { attemptDeliveryPost, type DeliveryPostAttempt } from './attempt-delivery-post.js';
import { classifyDeliveryResponse } from './classify-delivery-response.js';
import { toDeliveryFailure, type DeliveryFailureTypes, type FailedDeliveryClass } from './delivery-failure.js';
import { signedIngestHeaders } from './post-signed-internal.js';

/** Dependencies of {@link createPostEventToIngest}. */
export interface PostEventDeps {
  /** Full ingest URL (`WEBHOOK_URL`), e.g. `http://127.0.0.1:8080/api/webhooks/whatsapp`. */
  webhookUrl: string;
  /** The signing secret (the first of `WHATSAPP_WEBHOOK_SECRET`). */
  webhookSecret: string;
  /** Client timeout per attempt in ms; below `POST_EVENT_START_TO_CLOSE_TIMEOUT_MS` (default 15 000). */
  httpTimeoutMs: number;
  /** Injectable `fetch` (tests); defaults to the global one. */
  fetchImpl?: typeof fetch;
  /** Clock in epoch ms for `Retry-After` dates; defaults to `Date.now`. */
  now?: () => number;
}

/** Input of `postEventToIngest`: the exact body string from the workflow input (architecture.md §7). */
export interface PostEventInput {
  eventId: string;
  body: string;
}

/** Result of an accepted delivery. */
export interface PostEventResult {
  status: number;
  outcome: 'stored' | 'duplicate';
  responseExcerpt: string;
}

const INGEST_FAILURE_TYPES: DeliveryFailureTypes = {
  rejected: FailureType.IngestRejected,
  // Unauthorized and misconfigured are non-retryable for the activity only: the workflow handles them
  // (alert, then retry forever in its own loop), see workflows/deliver-event.ts.
  unauthorized: FailureType.IngestUnauthorized,
  misconfigured: FailureType.IngestMisconfigured,
  transient: FailureType.IngestTransient,
};

function toFailure(
  eventId: string,
  verdict: FailedDeliveryClass,
  responseExcerpt: string,
  cause?: unknown
): ApplicationFailure {
  const suffix = verdict.status === null ? '' : ` (HTTP ${verdict.status})`;
  const message = {
    rejected: `ingest rejected event ${eventId}${suffix}`,
    unauthorized: `ingest refused the signature${suffix}`,
    misconfigured: `ingest endpoint misconfigured${suffix}`,
    transient: `transient delivery failure: ${verdict.kind === 'transient' ? verdict.reason : ''}${suffix}`,
  }[verdict.kind];
  return toDeliveryFailure(INGEST_FAILURE_TYPES, verdict, { status: verdict.status, responseExcerpt }, message, cause);
}

function isDuplicate(status: number, headers: Headers | null, excerpt: string): boolean {
  if (headers?.get('idempotent-replayed') === 'true') return true;
  return status === 200 && excerpt.includes('"duplicate"');
}

/**
 * Builds the `postEventToIngest` activity: one signed POST of the exact body (architecture.md §7). Headers
 * `Content-Type: application/json`, `X-Event-Id`, `X-Signature`; redirects are never followed; the
 * client timeout and the activity's cancellation signal both abort the request. Run as a regular
 * activity it heartbeats every `POST_EVENT_HEARTBEAT_INTERVAL_MS` while the request is in flight.
 *
 * @returns the activity; it resolves with {@link PostEventResult} on 2xx.
 * @throws ApplicationFailure typed `IngestRejectedError` (non-retryable), `IngestUnauthorizedError` /
 *   `IngestMisconfiguredError` (non-retryable, handled by the workflow), or `IngestTransientError`
 *   (retryable; `nextRetryDelay` = `Retry-After`). Details: {@link IngestFailureDetails}.
 */
export function createPostEventToIngest(deps: PostEventDeps): (input: PostEventInput) => Promise<PostEventResult> {
  return async function postEventToIngest(input: PostEventInput): Promise<PostEventResult> {
    const context = Context.current();
    // A regular attempt heartbeats while the POST is in flight, so a killed worker's attempt times out
    // after POST_EVENT_HEARTBEAT_TIMEOUT_MS (ADR 0008). A local attempt cannot heartbeat: its
    // workflow task times out instead.
    const heartbeats = context.info.isLocal
      ? null
      : setInterval(() => context.heartbeat(), POST_EVENT_HEARTBEAT_INTERVAL_MS);
    let attempt: DeliveryPostAttempt;
    try {
      attempt = await attemptDeliveryPost(
        {
          url: deps.webhookUrl,
          headers: signedIngestHeaders(deps.webhookSecret, input.eventId, input.body),
          body: input.body,
        },
        { timeoutMs: deps.httpTimeoutMs, cancellation: context.cancellationSignal, fetchImpl: deps.fetchImpl }
      );
    } finally {
      if (heartbeats) clearInterval(heartbeats);
    }
    const { outcome, responseExcerpt, responseHeaders, cause } = attempt;
    const verdict = classifyDeliveryResponse(outcome, (deps.now ?? Date.now)());
    if (verdict.kind === 'delivered') {
      return {
        status: verdict.status,
        outcome: isDuplicate(verdict.status, responseHeaders, responseExcerpt) ? 'duplicate' : 'stored',
        responseExcerpt,
      };
    }
    log.warn('ingest delivery attempt failed', { eventId: input.eventId, class: verdict.kind, status: verdict.status });
    throw toFailure(input.eventId, verdict, responseExcerpt, cause);
  };
}
