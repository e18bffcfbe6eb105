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
  DELIVER_EVENT_LEAN_VERSION,
  POST_EVENT_HEARTBEAT_TIMEOUT_MS,
  POST_EVENT_START_TO_CLOSE_TIMEOUT_MS,
  WA_DELIVERY_STATE,
  WA_LAST_HTTP_STATUS,
  type DeliverEventCarry,
  type DeliverEventInput,
  type DeliverEventResult,
  type DeliveryState,
  type IngestFailureDetails,
} from './contracts.js';
import { ALERT_ACTIVITY_OPTIONS, BOOKKEEPING_ACTIVITY_OPTIONS, DELIVERY_RETRY } from './activity-options.js';
import { refuseInputOfAnotherWorkflow } from './forged-input.js';

// Transient failures (408/425/429/5xx/timeout/network) retry inside the activity: no maximumAttempts
// (unlimited; 0 would throw), exponential backoff capped at 5 min. Failed attempts cost no history.
// The activity heartbeats while its POST is in flight, so a killed worker's attempt is retried after
// the heartbeat timeout, not after the start-to-close timeout (ADR 0008).
const { postEventToIngest } = proxyActivities<Activities>({
  startToCloseTimeout: POST_EVENT_START_TO_CLOSE_TIMEOUT_MS,
  heartbeatTimeout: POST_EVENT_HEARTBEAT_TIMEOUT_MS,
  retry: DELIVERY_RETRY,
});

// The first POST runs once as a local activity inside the first workflow task: a first-try delivery
// costs one workflow task and one marker instead of an activity task round trip (ADR 0008).
// Any failure falls back to the regular activity above, which owns retries and heartbeats. A worker
// killed during it is noticed by the workflow task timeout (10 s) and the task runs again elsewhere.
const { postEventToIngest: postEventFirstAttempt } = proxyLocalActivities<Activities>({
  startToCloseTimeout: POST_EVENT_START_TO_CLOSE_TIMEOUT_MS,
  retry: { maximumAttempts: 1 },
});

const { recordDeadLetter, resolveDeadLetters } = proxyActivities<Activities>(BOOKKEEPING_ACTIVITY_OPTIONS);

const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

/** Backoff of the 401/403/3xx/404/405/410 loop: 5 s doubling, capped at 5 min (architecture.md §7). */
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
  // A regular activity fails with ActivityFailure(cause: ApplicationFailure); a local one may surface
  // the ApplicationFailure itself.
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return null;
  const raw = (cause.details?.[0] ?? {}) as Partial<IngestFailureDetails>;
  return {
    type: cause.type ?? '',
    details: { status: raw.status ?? null, responseExcerpt: raw.responseExcerpt ?? '' },
  };
}

/** First interval of the `postEventToIngest` retry policy, in ms. */
const FIRST_RETRY_INTERVAL_MS = 1_000;

/** The `Retry-After` an attempt failed with (`nextRetryDelay`, in ms), else {@link FIRST_RETRY_INTERVAL_MS}. */
function retryDelayMsOf(err: unknown): number {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return FIRST_RETRY_INTERVAL_MS;
  if (typeof cause.nextRetryDelay === 'number') return cause.nextRetryDelay;
  // Decoded failures keep the delay only in the raw proto.
  const raw = cause.failure?.applicationFailureInfo?.nextRetryDelay;
  if (!raw) return FIRST_RETRY_INTERVAL_MS;
  const seconds = raw.seconds ?? 0;
  const wholeSeconds = typeof seconds === 'object' ? seconds.toNumber() : Number(seconds);
  return wholeSeconds * 1_000 + Math.floor((raw.nanos ?? 0) / 1e6);
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
 * Delivers one event to the ingest API (architecture.md §7; workflowId = event_id). With `input.workflowVersion`
 * ≥ {@link DELIVER_EVENT_LEAN_VERSION} (the sender's) the first POST runs as a local activity in the
 * first workflow task and any failure hands over to the regular activity; without it (histories
 * written before) the run upserts `delivering` and uses the regular activity only. Outcomes:
 * 2xx → completes (on the first try with no upsert: `WaDeliveryState` stays `pending` and the Completed
 * status says delivered, ADR 0008; after a failure state, `delivered`); transient first try →
 * `delivering`, regular activity retried forever; 400/413/415/422/other 4xx → dead-letter entry, then fails
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
  // The collector starts each delivery under its event id: an input under another id was copied (ADR 0026).
  if (input.eventId !== workflowInfo().workflowId) return refuseInputOfAnotherWorkflow(input.eventId);
  let blockedTurns = carry?.blockedTurns ?? 0;
  let turnsThisRun = 0;
  let alertedState: BlockedState | null = null;
  // Lean happy path (ADR 0008): a run that has written no state since `pending`
  // completes without an upsert. Continued runs always come from a blocked state.
  let hasWrittenState = carry !== undefined;
  let failureToHandle: unknown = null;
  let isFirstAttemptFailure = false;
  if (carry === undefined) {
    if ((input.workflowVersion ?? 1) >= DELIVER_EVENT_LEAN_VERSION) {
      const first = await attempt(postEventFirstAttempt, input);
      if (first.ok) return completeDelivered(input, first.result, hasWrittenState);
      failureToHandle = first.error;
      isFirstAttemptFailure = true;
    } else {
      setDeliveryState('delivering', null);
      hasWrittenState = true;
    }
  }
  for (;;) {
    let err = failureToHandle;
    failureToHandle = null;
    if (err === null) {
      const next = await attempt(postEventToIngest, input);
      if (next.ok) return completeDelivered(input, next.result, hasWrittenState);
      err = next.error;
    }
    const failure = failureOf(err);
    hasWrittenState = true;
    if (failure?.type === FailureType.IngestRejected) return deadLetterAndFail(input, failure.details);
    if (failure?.type !== FailureType.IngestUnauthorized && failure?.type !== FailureType.IngestMisconfigured) {
      // Only the local first attempt ends in a transient failure (the regular activity retries forever):
      // hand the event to the regular activity and its retry policy.
      if (!isFirstAttemptFailure) throw err;
      isFirstAttemptFailure = false;
      setDeliveryState('delivering', null);
      // Wait as the retry policy would have: the answer's Retry-After, else its first interval.
      await sleep(retryDelayMsOf(err));
      continue;
    }
    isFirstAttemptFailure = false;
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

type PostEventResult = Awaited<ReturnType<Activities['postEventToIngest']>>;
type Attempt = { ok: true; result: PostEventResult } | { ok: false; error: unknown };

async function attempt(post: Activities['postEventToIngest'], input: DeliverEventInput): Promise<Attempt> {
  try {
    return { ok: true, result: await post({ eventId: input.eventId, body: input.body }) };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Completes a delivered run. A run that wrote no state (first try delivered, lean path) writes no search
 * attribute: its Completed status says delivered (ADR 0008). A run that showed another state
 * moves to `delivered`, so that state's Web UI query stops finding it. A run created by reset resolves
 * its dead-letter entry.
 */
async function completeDelivered(
  input: DeliverEventInput,
  result: PostEventResult,
  hasWrittenState: boolean
): Promise<DeliverEventResult> {
  if (hasWrittenState) setDeliveryState('delivered', result.status);
  const info = workflowInfo();
  if (info.runId !== info.originalExecutionRunId) {
    await resolveDeadLetters({ eventIds: [input.eventId], reason: 'delivered after reset' });
  }
  return { eventId: input.eventId, status: result.status, outcome: result.outcome };
}
