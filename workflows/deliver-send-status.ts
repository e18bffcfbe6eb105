import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { type DeliveryState, type IngestFailureDetails, WA_DELIVERY_STATE, WA_LAST_HTTP_STATUS } from './contracts.js';
import { BLOCKED_INITIAL_DELAY_MS, BLOCKED_MAX_DELAY_MS, MAX_BLOCKED_TURNS_PER_RUN } from './deliver-event.js';
import {
  SEND_STATUS_DEAD_LETTER_TYPE_PREFIX,
  StatusWebhookFailureType,
  sendStatusWebhookId,
  type SendStatusDeliveryInput,
  type SendStatusDeliveryResult,
} from './send-contracts.js';
import { ALERT_ACTIVITY_OPTIONS, BOOKKEEPING_ACTIVITY_OPTIONS, DELIVERY_RETRY } from './activity-options.js';
import { refuseInputOfAnotherWorkflow } from './forged-input.js';

// Transient failures (5xx, 408/425/429, timeouts, network, the ingest API unable to prepare) retry inside
// the activity forever with backoff, as lake delivery does (architecture.md §7). Prepare (≤ HTTP_TIMEOUT_MS)
// plus the POST (≤ 10 s) fit in the start-to-close timeout.
const { postSendStatusWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: '45s',
  retry: DELIVERY_RETRY,
});
const { recordDeadLetter, resolveDeadLetters } = proxyActivities<Activities>(BOOKKEEPING_ACTIVITY_OPTIONS);
const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

/** State carried across continue-as-new while the receiver is blocked (401/403/3xx/404…). */
export interface DeliverSendStatusCarry {
  blockedTurns: number;
}

function failureOf(err: unknown): { type: string; details: IngestFailureDetails } | null {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return null;
  const raw = (err.cause.details?.[0] ?? {}) as Partial<IngestFailureDetails>;
  return {
    type: err.cause.type ?? '',
    details: { status: raw.status ?? null, responseExcerpt: raw.responseExcerpt ?? '' },
  };
}

/**
 * Patch id of the `WaDeliveryState`/`WaLastHttpStatus` upserts (ADR 0017). Asked only once a delivery is blocked or
 * dead-lettered, so a first-try delivery's history is unchanged; histories written before replay without them.
 */
const STATUS_WEBHOOK_SEARCH_ATTRIBUTES_PATCH = 'status-webhook-search-attributes';

/** Records where a blocked or dead-lettered status webhook stands, as `deliverEvent` does (architecture.md §7). */
function setDeliveryState(state: DeliveryState, httpStatus: number | null): void {
  if (!patched(STATUS_WEBHOOK_SEARCH_ATTRIBUTES_PATCH)) return;
  const current = workflowInfo().typedSearchAttributes;
  const isStatusSame = httpStatus === null || current.get(WA_LAST_HTTP_STATUS) === httpStatus;
  if (current.get(WA_DELIVERY_STATE) === state && isStatusSame) return;
  upsertSearchAttributes([
    { key: WA_DELIVERY_STATE, value: state },
    ...(httpStatus === null ? [] : [{ key: WA_LAST_HTTP_STATUS, value: httpStatus }]),
  ]);
}

async function deadLetterAndFail(input: SendStatusDeliveryInput, details: IngestFailureDetails): Promise<never> {
  setDeliveryState('dead_lettered', details.status);
  await recordDeadLetter({
    eventId: workflowInfo().workflowId,
    type: `${SEND_STATUS_DEAD_LETTER_TYPE_PREFIX}${input.state}`,
    chatJid: null,
    httpStatus: details.status,
    responseExcerpt: details.responseExcerpt.slice(0, 256),
    // The body is built by the ingest API per attempt; the entry keeps the change itself (the input).
    bodySizeBytes: 0,
    deadLetteredAt: new Date().toISOString(),
    resolvedAt: null,
    resolution: null,
  });
  log.warn('status webhook dead-lettered', { messageId: input.messageId, state: input.state, status: details.status });
  throw ApplicationFailure.create({
    type: StatusWebhookFailureType.Rejected,
    message: `the status webhook receiver rejected ${input.state} of ${input.messageId} with HTTP ${details.status ?? 'unknown'}`,
    nonRetryable: true,
    details: [details],
  });
}

/**
 * Delivers one status change of an outbound message to its API key's webhook (ADR 0011;
 * workflowId = `webhook-id` = `send-status-<message_id>-<state>`, started by `sendMessage` as an abandoned
 * child). Outcomes as lake delivery (architecture.md §7): 2xx → completes; no webhook → completes, nothing
 * sent; 400/422/other 4xx → dead-letter entry (signal to `wa-lake-dead-letter`), then fails
 * non-retryably; 401/403 and 3xx/404/405/410 → one alert per run and kind, retry forever with capped
 * backoff (continue-as-new every {@link MAX_BLOCKED_TURNS_PER_RUN} turns); transient → retried by the
 * activity. A run created by reset (`wa-lake dlq replay`) resolves its dead-letter entry once delivered.
 *
 * @throws ApplicationFailure `StatusWebhookRejectedError` (non-retryable) when dead-lettered.
 */
export async function deliverSendStatus(
  input: SendStatusDeliveryInput,
  carry?: DeliverSendStatusCarry
): Promise<SendStatusDeliveryResult> {
  // `sendMessage` starts each under its webhook-id: an input under another id was copied (ADR 0026).
  const webhookId = sendStatusWebhookId(input.messageId, input.state);
  if (webhookId !== workflowInfo().workflowId) return refuseInputOfAnotherWorkflow(webhookId);
  let blockedTurns = carry?.blockedTurns ?? 0;
  let turnsThisRun = 0;
  let alertedType: string | null = null;
  let wasBlocked = blockedTurns > 0;
  for (;;) {
    try {
      const result = await postSendStatusWebhook(input);
      if (wasBlocked) setDeliveryState('delivered', result.status);
      const info = workflowInfo();
      if (info.runId !== info.originalExecutionRunId) {
        await resolveDeadLetters({ eventIds: [info.workflowId], reason: 'delivered after reset' });
      }
      return result;
    } catch (err) {
      const failure = failureOf(err);
      if (failure?.type === StatusWebhookFailureType.Rejected) return deadLetterAndFail(input, failure.details);
      const isUnauthorized = failure?.type === StatusWebhookFailureType.Unauthorized;
      if (!failure || (!isUnauthorized && failure.type !== StatusWebhookFailureType.Misconfigured)) throw err;
      if (alertedType !== failure.type) {
        await sendAlert({
          kind: isUnauthorized ? 'status_webhook_unauthorized' : 'status_webhook_misconfigured',
          severity: 'error',
          message: isUnauthorized
            ? 'a send API caller’s webhook refuses our signature; check the key’s webhook secret on their side; status webhooks retry by themselves'
            : 'a send API caller’s webhook URL answers as if it were wrong; status webhooks retry by themselves',
          details: { status: failure.details.status, messageId: input.messageId },
        });
      }
      alertedType = failure.type;
      setDeliveryState(isUnauthorized ? 'auth_blocked' : 'misconfigured', failure.details.status);
      wasBlocked = true;
      await sleep(Math.min(BLOCKED_INITIAL_DELAY_MS * 2 ** Math.min(blockedTurns, 20), BLOCKED_MAX_DELAY_MS));
      blockedTurns += 1;
      turnsThisRun += 1;
      if (turnsThisRun >= MAX_BLOCKED_TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof deliverSendStatus>(input, { blockedTurns });
      }
    }
  }
}
