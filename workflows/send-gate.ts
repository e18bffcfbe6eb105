import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { RecipientPacing } from './recipient-pacing.js';
import {
  SEND_CATEGORIES,
  dispatchGrantedSignal,
  pauseSendingSignal,
  requestDispatchSignal,
  resumeSendingSignal,
  sendGateStatusQuery,
  sendWorkflowId,
  type DispatchRequest,
  type SendGateCarry,
  type SendGateInput,
} from './send-contracts.js';
import { ALERT_ACTIVITY_OPTIONS } from './activity-options.js';
import { ControlSignalOrder } from './control-signal-order.js';
import { isSignalArgumentMissing, isSignalForAnotherWorkflow, setBoundSignalHandler } from './forged-input.js';

const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

/**
 * The patch id under which a bare `resumeSending` is ignored (ADR 0026); gate histories from before it replay
 * their bare resumes as resumes. The id must never change.
 */
const SIGNAL_ARGUMENT_REQUIRED_PATCH = 'signal-argument-required';

/** Grants per run before continue-as-new (each grant writes a handful of history events). */
export const MAX_GRANTS_PER_RUN = 500;
/** Grant times kept for the status query (the rate test reads them). */
const RECENT_GRANTS_KEPT = 1_000;

type QueuedRequest = DispatchRequest & { seq: number };

/** Higher priority first: category (otp, transactional, marketing), then earlier deadline, then arrival. */
function compareRequests(a: QueuedRequest, b: QueuedRequest): number {
  const byCategory = SEND_CATEGORIES.indexOf(a.category) - SEND_CATEGORIES.indexOf(b.category);
  if (byCategory !== 0) return byCategory;
  const aDeadline = a.deliverByMs ?? Number.MAX_SAFE_INTEGER;
  const bDeadline = b.deliverByMs ?? Number.MAX_SAFE_INTEGER;
  return aDeadline !== bDeadline ? aDeadline - bDeadline : a.seq - b.seq;
}

/**
 * The per-account dispatch gate (architecture.md §12; workflowId `send-gate-<account>`): a token
 * bucket of `burst` tokens refilled at `ratePerMinute` (never a fixed sleep) hands out dispatch slots by
 * priority — otp before transactional before marketing, earliest deadline first — so a marketing burst
 * never makes a code miss its deadline. Requests whose `deliver_by` passed are dropped (their workflow
 * expires them). With `perRecipientIntervalMs` (ADR 0015) a request whose recipient was granted less
 * than that long ago waits while requests to other recipients go ahead (WhatsApp limits one chat to about one
 * message per 6 s); old inputs have no interval and run exactly as before. Paused (operator or logged-out session) → no grants until resumed; pausing alerts once.
 * Continues-as-new every {@link MAX_GRANTS_PER_RUN} grants, carrying the queue and the bucket.
 */
export async function sendGate(input: SendGateInput): Promise<never> {
  const carry: SendGateCarry = input.carry ?? {
    queue: [],
    tokens: input.burst,
    lastRefillMs: Date.now(),
    nextSeq: 0,
    paused: false,
    pausedReason: null,
  };
  const queue: QueuedRequest[] = carry.queue;
  let { tokens, lastRefillMs, nextSeq, paused, pausedReason } = carry;
  let grantsThisRun = 0;
  const recentGrants: Array<{ messageId: string; atMs: number }> = carry.recentGrants ?? [];
  const msPerToken = 60_000 / input.ratePerMinute;
  const pacing = new RecipientPacing(input.perRecipientIntervalMs ?? 0, carry.lastGrantByRecipient ?? {});
  const controls = new ControlSignalOrder(carry.lastControl ?? null);

  setBoundSignalHandler(requestDispatchSignal, (request) => {
    if (queue.some((queued) => queued.messageId === request.messageId)) return;
    queue.push({ ...request, seq: nextSeq++ });
  });
  // Control signals are bound to this gate and ordered (ADR 0026 §4, §5): a copied one changes nothing.
  setBoundSignalHandler(pauseSendingSignal, (request) => {
    if (!controls.admit(pauseSendingSignal.name, request)) return;
    const { reason } = request;
    if (!paused) {
      log.warn('sending paused', { accountId: input.accountId, reason });
      void sendAlert({
        kind: `send_paused_${reason}`,
        severity: 'error',
        message:
          reason === 'logged_out'
            ? 'the sending account is logged out of WhatsApp; sending is paused until it is linked again'
            : 'sending is paused for an account',
        details: { accountId: input.accountId, reason },
      });
    }
    paused = true;
    pausedReason = reason;
  });
  setHandler(resumeSendingSignal, (request) => {
    if (patched(SIGNAL_ARGUMENT_REQUIRED_PATCH) && isSignalArgumentMissing(resumeSendingSignal.name, request)) return;
    // A bare resume in a history from before the patch has no argument to check.
    if (request !== undefined && request !== null) {
      if (isSignalForAnotherWorkflow(resumeSendingSignal.name, request.target)) return;
      if (!controls.admit(resumeSendingSignal.name, request)) return;
    }
    paused = false;
    pausedReason = null;
  });
  setHandler(sendGateStatusQuery, () => ({ queued: queue.length, paused, pausedReason, tokens, recentGrants }));

  const refill = (): void => {
    const now = Date.now();
    tokens = Math.min(input.burst, tokens + (now - lastRefillMs) / msPerToken);
    lastRefillMs = now;
  };

  for (;;) {
    await condition(() => queue.length > 0 && !paused);
    const now = Date.now();
    for (let i = queue.length - 1; i >= 0; i -= 1) {
      const deadline = queue[i]?.deliverByMs;
      if (deadline !== null && deadline !== undefined && deadline <= now) queue.splice(i, 1);
    }
    if (queue.length === 0) continue;
    refill();
    if (tokens < 1) {
      await sleep(Math.ceil((1 - tokens) * msPerToken));
      continue;
    }
    queue.sort(compareRequests);
    const nextIndex = pacing.firstEligible(queue, now);
    if (nextIndex < 0) {
      // Every queued request waits for its recipient's interval: sleep until the first is due, or a new request.
      const queuedBefore = queue.length;
      await condition(() => queue.length !== queuedBefore || paused, pacing.waitMs(queue, now));
      continue;
    }
    const [next] = queue.splice(nextIndex, 1);
    if (!next) continue;
    if (next.category === 'marketing' && input.marketingJitterMaxMs > 0) {
      // Human-like spacing for marketing only (architecture.md §12); the token is already counted.
      await sleep(Math.floor(Math.random() * input.marketingJitterMaxMs));
    }
    tokens -= 1;
    const grantedAtMs = Date.now();
    pacing.record(next, grantedAtMs);
    recentGrants.push({ messageId: next.messageId, atMs: grantedAtMs });
    if (recentGrants.length > RECENT_GRANTS_KEPT) recentGrants.shift();
    try {
      const target = sendWorkflowId(next.messageId);
      await getExternalWorkflowHandle(target).signal(dispatchGrantedSignal, { target, grantedAtMs });
    } catch (err) {
      log.warn('granted message is gone', { messageId: next.messageId, err: String(err) });
    }
    grantsThisRun += 1;
    if (grantsThisRun >= MAX_GRANTS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      const lastControl = controls.snapshot();
      await continueAsNew<typeof sendGate>({
        ...input,
        carry: {
          queue,
          tokens,
          lastRefillMs,
          nextSeq,
          paused,
          pausedReason,
          recentGrants,
          ...(lastControl ? { lastControl } : {}),
          ...(pacing.isOn ? { lastGrantByRecipient: pacing.snapshot() } : {}),
        },
      });
    }
  }
}
