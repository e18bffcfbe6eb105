import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  log,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  FailureType,
  POST_EVENT_START_TO_CLOSE_TIMEOUT_MS,
  WA_DELIVERY_STATE,
  WA_LAST_HTTP_STATUS,
  type DeliverEventCarry,
  type DeliverEventInput,
  type DeliverEventResult,
  type DeliveryState,
  type IngestFailureDetails,
} from './contracts.js';

// Transient failures (408/425/429/5xx/timeout/network) retry inside the activity: no maximumAttempts
// (unlimited; 0 would throw), exponential backoff capped at 5 min. Failed attempts cost no history.
const { postEventToIngest } = proxyActivities<Activities>({
  startToCloseTimeout: POST_EVENT_START_TO_CLOSE_TIMEOUT_MS,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m' },
});

const { recordDeadLetter, resolveDeadLetters } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

// The alert only calls the worker's in-process windowed sink: a local activity runs inside the workflow
// task, so thousands of blocked events cost no extra task round-trips (issue #3 item 3).
const { sendAlert } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

/** Backoff of the 401/403/3xx/404/405/410 loop: 5 s doubling, capped at 5 min (DESIGN §7). */
export const BLOCKED_INITIAL_DELAY_MS = 5_000;
export const BLOCKED_MAX_DELAY_MS = 300_000;
/** Blocked turns per run before continue-as-new (each turn writes about 20 history events). */
export const MAX_BLOCKED_TURNS_PER_RUN = 50;

type BlockedState = Extract<DeliveryState, 'auth_blocked' | 'misconfigured'>;

function setDeliveryState(state: DeliveryState, httpStatus: number | null): void {
  const current = workflowInfo().typedSearchAttributes;
  const isStateSame = current.get(WA_DELIVERY_STATE) === state;
  const isStatusSame = httpStatus === null || current.get(WA_LAST_HTTP_STATUS) === httpStatus;
  if (isStateSame && isStatusSame) return;
  upsertSearchAttributes([
    { key: WA_DELIVERY_STATE, value: state },
    ...(httpStatus === null ? [] : [{ key: WA_LAST_HTTP_STATUS, value: httpStatus }]),
  ]);
}

function failureOf(err: unknown): { type: string; details: IngestFailureDetails } | null {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return null;
  const raw = (err.cause.details?.[0] ?? {}) as Partial<IngestFailureDetails>;
  return {
    type: err.cause.type ?? '',
    details: { status: raw.status ?? null, responseExcerpt: raw.responseExcerpt ?? '' },
  };
}

function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    bytes += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
  }
  return bytes;
}

async function deadLetterAndFail(input: DeliverEventInput, details: IngestFailureDetails): Promise<never> {
  setDeliveryState('dead_lettered', details.status);
  await recordDeadLetter({
    eventId: input.eventId,
    type: input.type,
    chatJid: input.chatJid,
    httpStatus: details.status,
    responseExcerpt: details.responseExcerpt.slice(0, 256),
    bodySizeBytes: utf8ByteLength(input.body),
    deadLetteredAt: new Date().toISOString(),
    resolvedAt: null,
    resolution: null,
  });
  log.warn('event dead-lettered', { eventId: input.eventId, status: details.status });
  throw ApplicationFailure.create({
    type: FailureType.IngestRejected,
    message: `ingest rejected event ${input.eventId} with HTTP ${details.status ?? 'unknown'}`,
    nonRetryable: true,
    details: [details],
  });
}

async function alertBlocked(state: BlockedState, details: IngestFailureDetails): Promise<void> {
  await sendAlert({
    kind: state === 'auth_blocked' ? 'ingest_unauthorized' : 'ingest_misconfigured',
    severity: 'error',
    message:
      state === 'auth_blocked'
        ? 'the ingest API refuses our signature; check WHATSAPP_WEBHOOK_SECRET on both sides; deliveries retry by themselves'
        : 'the ingest endpoint answers as if WEBHOOK_URL were wrong; deliveries retry by themselves',
    details: { status: details.status, taskQueue: workflowInfo().taskQueue },
  });
}

function blockedDelayMs(blockedTurns: number): number {
  return Math.min(BLOCKED_INITIAL_DELAY_MS * 2 ** Math.min(blockedTurns, 20), BLOCKED_MAX_DELAY_MS);
}

/**
 * Delivers one event to the ingest API (DESIGN §7; workflowId = event_id). Outcomes:
 * 2xx → completes, `WaDeliveryState=delivered`; 400/413/415/422/other 4xx → dead-letter entry, then fails
 * non-retryably (`IngestRejectedError`), `dead_lettered`; 401/403 → `auth_blocked`, alert, retry forever;
 * 3xx/404/405/410 → `misconfigured`, alert, retry forever (the alert activity runs once per run and
 * state); transient → retried by the activity forever.
 * The blocked loop continues-as-new every {@link MAX_BLOCKED_TURNS_PER_RUN} turns or when suggested.
 * A run created by reset (`temporal workflow reset`, `wa-lake dlq replay`) resolves the dead-letter entry
 * once delivered.
 *
 * @param input - the event and its exact body string (signed and sent unchanged on every attempt).
 * @param carry - state from the previous run when continued-as-new; omitted by the sender.
 * @returns `{ eventId, status, outcome }` — 201 stored or 200 duplicate.
 * @throws ApplicationFailure `IngestRejectedError` (non-retryable) when the event is dead-lettered.
 */
export async function deliverEvent(input: DeliverEventInput, carry?: DeliverEventCarry): Promise<DeliverEventResult> {
  let blockedTurns = carry?.blockedTurns ?? 0;
  let turnsThisRun = 0;
  let alertedState: BlockedState | null = null;
  if (!carry) setDeliveryState('delivering', null);
  for (;;) {
    try {
      const result = await postEventToIngest({ eventId: input.eventId, body: input.body });
      setDeliveryState('delivered', result.status);
      const info = workflowInfo();
      if (info.runId !== info.originalExecutionRunId) {
        await resolveDeadLetters({ eventIds: [input.eventId], reason: 'delivered after reset' });
      }
      return { eventId: input.eventId, status: result.status, outcome: result.outcome };
    } catch (err) {
      const failure = failureOf(err);
      if (failure?.type === FailureType.IngestRejected) return deadLetterAndFail(input, failure.details);
      if (failure?.type !== FailureType.IngestUnauthorized && failure?.type !== FailureType.IngestMisconfigured)
        throw err;
      const state: BlockedState = failure.type === FailureType.IngestUnauthorized ? 'auth_blocked' : 'misconfigured';
      setDeliveryState(state, failure.details.status);
      // One alert activity per run and state (the sink dedups across events); each continue-as-new
      // (every MAX_BLOCKED_TURNS_PER_RUN turns, ~4 h at the cap) raises it again while still blocked.
      if (alertedState !== state) await alertBlocked(state, failure.details);
      alertedState = state;
      await sleep(blockedDelayMs(blockedTurns));
      blockedTurns += 1;
      turnsThisRun += 1;
      if (turnsThisRun >= MAX_BLOCKED_TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof deliverEvent>(input, { blockedTurns });
      }
    }
  }
}
