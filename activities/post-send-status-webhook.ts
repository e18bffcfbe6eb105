import { ApplicationFailure, log } from '@temporalio/activity';
import type { AlertSink } from '../common/alert-sink.js';
import {
  SEND_STATUS_WEBHOOK_OUTCOMES_PATH,
  SEND_STATUS_WEBHOOKS_PATH,
  type PrepareStatusWebhookRequest,
  type PreparedStatusWebhook,
  type StatusWebhookOutcomeAnswer,
  type StatusWebhookOutcomeReport,
} from '../common/send-status-webhook.js';
import {
  STATUS_WEBHOOK_TIMEOUT_MS,
  StatusWebhookFailureType,
  type SendStatusDeliveryInput,
  type SendStatusDeliveryResult,
} from '../workflows/send-contracts.js';
import type { WebhookUrlPolicy } from '../common/webhook-url-policy.js';
import { createGuardedWebhookFetch } from '../common/guarded-webhook-fetch.js';
import { attemptDeliveryPost } from './attempt-delivery-post.js';
import { classifyDeliveryResponse } from './classify-delivery-response.js';
import { toDeliveryFailure, type DeliveryFailureTypes } from './delivery-failure.js';
import { postSignedInternal, type SignedInternalTarget } from './post-signed-internal.js';

/** Dependencies of {@link createPostSendStatusWebhook}. */
export interface PostSendStatusWebhookDeps {
  /** `WEBHOOK_URL`: the ingest API's origin is taken from it. */
  webhookUrl: string;
  /** Internal signing secret (the first of `WHATSAPP_WEBHOOK_SECRET`). */
  webhookSecret: string;
  /** Client timeout of the call to the ingest API, in ms (`HTTP_TIMEOUT_MS`). */
  httpTimeoutMs: number;
  /** Client timeout of the POST to the caller's webhook, in ms (default {@link STATUS_WEBHOOK_TIMEOUT_MS}). */
  statusWebhookTimeoutMs?: number;
  /**
   * What the caller's webhook URL may point at (`SEND_WEBHOOK_ALLOW_HTTP`/`_PRIVATE`, ADR 0014): checked
   * again on every attempt, after DNS resolution.
   */
  statusWebhookPolicy: WebhookUrlPolicy;
  /** `fetch` of the call to the ingest API (tests); the caller's webhook always goes through the guard. */
  fetchImpl?: typeof fetch;
  /** `fetch` of the POST to the caller's webhook; default `createGuardedWebhookFetch(statusWebhookPolicy)`. */
  statusWebhookFetch?: typeof fetch;
  /** Where the one alert of a disabled endpoint goes (ADR 0014 decision 8); none in tests that do not look. */
  alertSink?: AlertSink;
  now?: () => number;
}

const STATUS_WEBHOOK_FAILURE_TYPES: DeliveryFailureTypes = {
  rejected: StatusWebhookFailureType.Rejected,
  unauthorized: StatusWebhookFailureType.Unauthorized,
  misconfigured: StatusWebhookFailureType.Misconfigured,
  transient: StatusWebhookFailureType.Transient,
};

async function prepare(
  deps: PostSendStatusWebhookDeps,
  input: SendStatusDeliveryInput,
  fetchImpl: typeof fetch
): Promise<PreparedStatusWebhook> {
  const request: PrepareStatusWebhookRequest = {
    message_id: input.messageId,
    state: input.state,
    at: input.at,
    reason_code: input.reasonCode,
    sequence: input.sequence,
  };
  const target: SignedInternalTarget = {
    url: new URL(SEND_STATUS_WEBHOOKS_PATH, deps.webhookUrl).toString(),
    webhookSecret: deps.webhookSecret,
    httpTimeoutMs: deps.httpTimeoutMs,
    fetchImpl,
  };
  const response = await postSignedInternal(target, input.messageId, JSON.stringify(request));
  if (!response.ok) {
    await response.body?.cancel();
    // Our own API could not prepare it (down, busy, misconfigured): retried with backoff, never dead-lettered.
    throw ApplicationFailure.create({
      type: StatusWebhookFailureType.Transient,
      message: `ingest answered ${response.status} when preparing a status webhook`,
      details: [{ status: null, responseExcerpt: '' }],
    });
  }
  return (await response.json()) as PreparedStatusWebhook;
}

/**
 * Reports one attempt's outcome to the ingest API, which disables an endpoint failing for days or answering 410
 * (ADR 0014 decision 8); the report that disabled it raises the one alert. A report that cannot be made is
 * logged and dropped: the next attempt reports again.
 */
async function reportOutcome(
  deps: PostSendStatusWebhookDeps,
  fetchImpl: typeof fetch,
  input: SendStatusDeliveryInput,
  outcome: { delivered: boolean; status: number | null }
): Promise<void> {
  const report: StatusWebhookOutcomeReport = { message_id: input.messageId, ...outcome };
  const target: SignedInternalTarget = {
    url: new URL(SEND_STATUS_WEBHOOK_OUTCOMES_PATH, deps.webhookUrl).toString(),
    webhookSecret: deps.webhookSecret,
    httpTimeoutMs: deps.httpTimeoutMs,
    fetchImpl,
  };
  try {
    const response = await postSignedInternal(target, input.messageId, JSON.stringify(report));
    if (!response.ok) {
      await response.body?.cancel();
      log.warn('status webhook outcome not recorded', { messageId: input.messageId, status: response.status });
      return;
    }
    const answer = (await response.json()) as StatusWebhookOutcomeAnswer;
    if (answer.disabled_now) {
      await deps.alertSink?.send({
        kind: 'status_webhook_disabled',
        severity: 'error',
        message:
          `a send API key's status webhook was disabled (${answer.reason ?? 'failing'}); no status change is sent ` +
          'to it until wa-lake api-keys enable-webhook',
        details: { keyId: answer.key_id, status: outcome.status },
      });
    }
  } catch (err) {
    log.warn('status webhook outcome not recorded', { messageId: input.messageId, err });
  }
}

/**
 * Builds the `postSendStatusWebhook` activity (ADR 0011): asks the ingest API for the
 * signed Standard Webhooks request of one status change (fresh `webhook-timestamp`, constant
 * `webhook-id`), POSTs it to the API key's webhook URL (≤ 10 s, redirects never followed, the URL and every address
 * it resolves to checked against the webhook policy, at most 64 KiB of the answer read) and classifies
 * the answer with `classifyDeliveryResponse`, exactly like lake delivery (architecture.md §7).
 *
 * @returns `{status, outcome: 'delivered'}` on 2xx, `{status: null, outcome: 'no_webhook'}` when the key
 *   has no webhook (nothing is sent).
 * @throws ApplicationFailure `StatusWebhookRejectedError` (non-retryable, → dead-letter),
 *   `StatusWebhookUnauthorizedError` / `StatusWebhookMisconfiguredError` (non-retryable for the activity,
 *   the workflow alerts and retries), `StatusWebhookTransientError` (retryable, `Retry-After` honoured).
 */
export function createPostSendStatusWebhook(
  deps: PostSendStatusWebhookDeps
): (input: SendStatusDeliveryInput) => Promise<SendStatusDeliveryResult> {
  const fetchImpl = deps.fetchImpl ?? fetch;
  const statusWebhookFetch = deps.statusWebhookFetch ?? createGuardedWebhookFetch(deps.statusWebhookPolicy);
  return async function postSendStatusWebhook(input: SendStatusDeliveryInput): Promise<SendStatusDeliveryResult> {
    const prepared = await prepare(deps, input, fetchImpl);
    if (prepared.url === null) return { status: null, outcome: 'no_webhook' };
    const { outcome, responseExcerpt, cause } = await attemptDeliveryPost(prepared, {
      timeoutMs: deps.statusWebhookTimeoutMs ?? STATUS_WEBHOOK_TIMEOUT_MS,
      fetchImpl: statusWebhookFetch,
    });
    const verdict = classifyDeliveryResponse(outcome, (deps.now ?? Date.now)());
    if (verdict.kind === 'delivered') {
      if (prepared.is_failing === true)
        await reportOutcome(deps, fetchImpl, input, { delivered: true, status: verdict.status });
      return { status: verdict.status, outcome: 'delivered' };
    }
    await reportOutcome(deps, fetchImpl, input, { delivered: false, status: verdict.status });
    log.warn('status webhook attempt failed', {
      messageId: input.messageId,
      state: input.state,
      class: verdict.kind,
      status: verdict.status,
    });
    const suffix = verdict.status === null ? '' : ` (HTTP ${verdict.status})`;
    throw toDeliveryFailure(
      STATUS_WEBHOOK_FAILURE_TYPES,
      verdict,
      { status: verdict.status, responseExcerpt },
      `status webhook ${verdict.kind}${suffix}`,
      cause
    );
  };
}
