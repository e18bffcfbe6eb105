import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  proxyActivities,
} from '@temporalio/workflow';
import {
  DISPATCH_HEARTBEAT_TIMEOUT_MS,
  DISPATCH_START_TO_CLOSE_MS,
  SendFailureType,
  sessionTaskQueue,
  type SessionActivities,
} from './send-contracts.js';

/** How long a dispatch task may wait for the collector before the attempt counts as "not connected". */
const DISPATCH_SCHEDULE_TO_START_MS = 60_000;
const PERMANENT_FAILURES: ReadonlySet<string> = new Set([
  SendFailureType.NotOnWhatsApp,
  SendFailureType.Blocked,
  SendFailureType.InvalidPayload,
]);

/** What one failed dispatch attempt means for the next step of `sendMessage`. */
export type AttemptOutcome = { kind: 'dispatched' } | { kind: 'permanent' | 'logged_out' | 'transient'; type: string };

/**
 * Classifies a failed dispatch attempt by the `ApplicationFailure` type the session activity threw (house style §4:
 * branch on `type` strings): permanent (not on WhatsApp, blocked, invalid payload), logged out, or transient; a
 * timeout is transient. ADR 0009.
 *
 * @throws `err` itself when it is neither a typed activity failure nor a timeout.
 */
export function classifyAttempt(err: unknown): AttemptOutcome {
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

/** The collector's session activity that puts one message on the wire for an account. */
export type DispatchActivity = SessionActivities['dispatchWhatsAppMessage'];

/**
 * The dispatch activity of `accountId`'s session task queue, one attempt per call: the workflow decides each
 * retry (it must see ACKs and the deadline first). ADR 0009.
 */
export function proxyDispatchActivity(accountId: string): DispatchActivity {
  return proxyActivities<SessionActivities>({
    taskQueue: sessionTaskQueue(accountId),
    startToCloseTimeout: DISPATCH_START_TO_CLOSE_MS,
    heartbeatTimeout: DISPATCH_HEARTBEAT_TIMEOUT_MS,
    scheduleToStartTimeout: DISPATCH_SCHEDULE_TO_START_MS,
    retry: { maximumAttempts: 1 },
    // A deadline cancel only ever cancels an attempt no collector has picked up yet: a started attempt
    // (which may already be on the wire) is waited for and its real outcome kept, so an accepted send is
    // never reported expired (ADR 0009).
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  }).dispatchWhatsAppMessage;
}
