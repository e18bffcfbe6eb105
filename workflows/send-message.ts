import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  DISPATCH_HEARTBEAT_TIMEOUT_MS,
  DISPATCH_START_TO_CLOSE_MS,
  SEND_REASON_CODES,
  SendFailureType,
  WA_SEND_STATE,
  dispatchGrantedSignal,
  isForwardTransition,
  sendAckSignal,
  sendStatusQuery,
  sendWorkflowId,
  sessionTaskQueue,
  type SendFailureTypeName,
  type SendMessageInput,
  type SendMessageResult,
  type SendState,
  type SendTransition,
  type SessionActivities,
} from './send-contracts.js';
import { dispatchBeforeDeadline } from './dispatch-before-deadline.js';
import { isSignalArgumentMissing, refuseInputOfAnotherWorkflow } from './forged-input.js';
import { createStatusWebhookNotifier } from './status-webhook-notifier.js';
import { ALERT_ACTIVITY_OPTIONS, BOOKKEEPING_ACTIVITY_OPTIONS } from './activity-options.js';

const { reportSendTransition, requestDispatchSlot, pauseAccountSending } =
  proxyActivities<Activities>(BOOKKEEPING_ACTIVITY_OPTIONS);
const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

const DEFAULT_ACK_GRACE_MS = 15 * 60_000;
const DEFAULT_ACK_WAIT_MS = 7 * 24 * 60 * 60_000;
const DEFAULT_RETRY_INITIAL_MS = 2_000;
const RETRY_MAX_MS = 5 * 60_000;
/** How long a dispatch task may wait for the collector before the attempt counts as "not connected". */
const DISPATCH_SCHEDULE_TO_START_MS = 60_000;
const PERMANENT_FAILURES: ReadonlySet<string> = new Set([
  SendFailureType.NotOnWhatsApp,
  SendFailureType.Blocked,
  SendFailureType.InvalidPayload,
]);

type AttemptOutcome = { kind: 'dispatched' } | { kind: 'permanent' | 'logged_out' | 'transient'; type: string };

function classifyAttempt(err: unknown): AttemptOutcome {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    const type = err.cause.type ?? '';
    if (PERMANENT_FAILURES.has(type)) return { kind: 'permanent', type };
    if (type === SendFailureType.LoggedOut) return { kind: 'logged_out', type };
    return { kind: 'transient', type };
  }
  // Start-to-close or heartbeat (in flight: maybe on the wire) or schedule-to-start (collector absent: never sent).
  if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure)
    return { kind: 'transient', type: SendFailureType.Timeout };
  throw err;
}

/**
 * One outbound message (architecture.md §12, ADR 0009; workflowId `send-<message_id>`): waits for a slot from the
 * account's gate (rate and priority), dispatches through the collector's session worker with the
 * WhatsApp id derived from `message_id`, then follows ACKs. States move forward only
 * (queued → dispatched → sent → delivered → read, or failed / expired); ACK signals are applied whenever
 * they arrive, so one that beats the `dispatched` record is kept. After the socket accepted the message
 * nothing re-sends it: a missing ACK raises one alert after `ackGraceMs`. Transient failures retry with
 * backoff and jitter until `deliver_by`; a retry after an in-flight timeout reuses the same WhatsApp id.
 * With `input.statusWebhook`, each state (from `queued`) also starts a `deliverSendStatus` child that POSTs
 * it to the API key's webhook (ADR 0011).
 *
 * @returns the final (or last) state, its reason code and the number of dispatch attempts.
 * @throws what an attempt rejects with that it does not classify (neither a typed `ApplicationFailure`,
 *   a timeout nor a deadline cancellation): the run's own cancellation (the run ends cancelled), another
 *   `TemporalFailure` (the run fails) or a plain error (the workflow task fails and Temporal retries it).
 */
export async function sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
  // The ingest API starts each message under `send-<message_id>`: an input under another id was copied (ADR 0026).
  if (sendWorkflowId(input.messageId) !== workflowInfo().workflowId)
    return refuseInputOfAnotherWorkflow(sendWorkflowId(input.messageId));
  const ackGraceMs = input.options?.ackGraceMs ?? DEFAULT_ACK_GRACE_MS;
  const ackWaitMs = input.options?.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  const deliverByMs = input.deliverBy === null ? null : Date.parse(input.deliverBy);
  const { dispatchWhatsAppMessage } = proxyActivities<SessionActivities>({
    taskQueue: sessionTaskQueue(input.accountId),
    startToCloseTimeout: DISPATCH_START_TO_CLOSE_MS,
    heartbeatTimeout: DISPATCH_HEARTBEAT_TIMEOUT_MS,
    scheduleToStartTimeout: DISPATCH_SCHEDULE_TO_START_MS,
    // One attempt per call: the workflow decides each retry (it must see ACKs and the deadline first).
    retry: { maximumAttempts: 1 },
    // A deadline cancel only ever cancels an attempt no collector has picked up yet: a started attempt
    // (which may already be on the wire) is waited for and its real outcome kept, so an accepted send is
    // never reported expired (ADR 0009).
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  let state: SendState = 'queued';
  let reasonCode: string | null = null;
  let grantedAtMs: number | null = null;
  let dispatchAttempts = 0;
  const transitions: SendTransition[] = [{ state: 'queued', at: new Date().toISOString(), reasonCode: null }];
  const unreported: SendTransition[] = [];

  const advance = (to: SendState, reason: string | null = null): void => {
    if (!isForwardTransition(state, to)) return;
    state = to;
    if (reason !== null) reasonCode = reason;
    const transition = { state: to, at: new Date().toISOString(), reasonCode: reason };
    transitions.push(transition);
    unreported.push(transition);
    upsertSearchAttributes([{ key: WA_SEND_STATE, value: to }]);
  };
  // Status webhooks (ADR 0011); only runs started with `statusWebhook` issue commands for them.
  const statusWebhooks = createStatusWebhookNotifier(input.messageId, input.statusWebhook === true);
  const flush = async (): Promise<void> => {
    for (let next = unreported.shift(); next; next = unreported.shift()) {
      await reportSendTransition({ messageId: input.messageId, ...next });
      statusWebhooks.notify(next, transitions.indexOf(next) + 1);
    }
  };
  // Read through a function: signal handlers change `state` between awaits, which TypeScript's narrowing cannot see.
  const current = (): SendState => state;
  const isDeadlinePassed = (): boolean => deliverByMs !== null && Date.now() >= deliverByMs;
  const msToDeadline = (): number | undefined =>
    deliverByMs === null ? undefined : Math.max(deliverByMs - Date.now(), 0);

  setHandler(sendAckSignal, (ack) => {
    if (isSignalArgumentMissing(sendAckSignal.name, ack)) return;
    advance(ack.status, ack.status === 'failed' ? (ack.reasonCode ?? 'ack_error') : null);
  });
  setHandler(dispatchGrantedSignal, (grant) => {
    if (isSignalArgumentMissing(dispatchGrantedSignal.name, grant)) return;
    grantedAtMs ??= grant.grantedAtMs;
  });
  setHandler(sendStatusQuery, () => ({ state, transitions }));

  const awaitGrant = async (): Promise<boolean> => {
    grantedAtMs = null;
    await requestDispatchSlot({
      accountId: input.accountId,
      request: { messageId: input.messageId, category: input.category, deliverByMs, recipientJid: input.toJid },
    });
    const timeout = msToDeadline();
    return timeout === undefined
      ? (await condition(() => grantedAtMs !== null), true)
      : condition(() => grantedAtMs !== null, timeout);
  };

  if (transitions[0]) statusWebhooks.notify(transitions[0], 1);
  let retryDelayMs = input.options?.retryInitialMs ?? DEFAULT_RETRY_INITIAL_MS;
  let hasGrant = isDeadlinePassed() ? false : await awaitGrant();
  while (state === 'queued') {
    if (!hasGrant || isDeadlinePassed()) {
      advance('expired', 'deliver_by_passed');
      break;
    }
    dispatchAttempts += 1;
    try {
      await dispatchBeforeDeadline(
        dispatchWhatsAppMessage,
        {
          messageId: input.messageId,
          waMessageId: input.waMessageId,
          toJid: input.toJid,
          text: input.text,
          category: input.category,
          grantedAtMs: grantedAtMs ?? Date.now(),
          deliverByMs,
        },
        msToDeadline()
      );
      advance('dispatched');
      break;
    } catch (err) {
      // The deadline cancelled an attempt no collector had started: the loop records `expired`.
      if (isCancellation(err) && isDeadlinePassed()) continue;
      const outcome = classifyAttempt(err);
      if (current() !== 'queued') break; // an ACK arrived meanwhile: the message is out; never send again
      if (outcome.kind === 'permanent') {
        advance('failed', SEND_REASON_CODES[outcome.type as SendFailureTypeName] ?? outcome.type);
        break;
      }
      if (outcome.kind === 'logged_out') {
        log.warn('account logged out; sending paused', { messageId: input.messageId });
        await pauseAccountSending({ accountId: input.accountId, reason: 'logged_out' });
        hasGrant = await awaitGrant();
        continue;
      }
      // Jitter in [delay/2, delay] (workflow Math.random is deterministic), never past the deadline.
      const jittered = retryDelayMs / 2 + (Math.random() * retryDelayMs) / 2;
      await sleep(Math.min(jittered, msToDeadline() ?? jittered));
      retryDelayMs = Math.min(retryDelayMs * 2, RETRY_MAX_MS);
    }
  }
  await flush();
  if (current() === 'dispatched' || current() === 'sent' || current() === 'delivered') {
    const ackDeadlineMs = Date.now() + ackWaitMs;
    const hasAck = await condition(() => current() !== 'dispatched', ackGraceMs);
    if (!hasAck) {
      log.error('no ack after the grace period; not re-sending', { messageId: input.messageId });
      await sendAlert({
        kind: 'send_ack_missing',
        severity: 'warning',
        message:
          'an outbound message was accepted by the socket but WhatsApp has not acknowledged it; it is not re-sent',
        details: { messageId: input.messageId, graceMs: ackGraceMs },
      });
    }
    while (current() !== 'read' && current() !== 'failed' && Date.now() < ackDeadlineMs) {
      await flush();
      await condition(
        () => unreported.length > 0 || current() === 'read' || current() === 'failed',
        ackDeadlineMs - Date.now()
      );
    }
  }
  await flush();
  await statusWebhooks.settle();
  return { messageId: input.messageId, state, reasonCode, dispatchAttempts };
}
