import { CancellationScope, patched, sleep } from '@temporalio/workflow';

/**
 * The patch id that bounds a dispatch attempt by `deliver_by` (ADR 0009). Histories written before it
 * took the unbounded path; the id must never change, or their replay would take the other branch.
 */
const DISPATCH_BOUNDED_BY_DELIVER_BY_PATCH = 'send-dispatch-bounded-by-deliver-by';

/**
 * Runs one dispatch attempt of `sendMessage`, cancelling it when `deliver_by` passes first (workflow code:
 * deterministic, called from the workflow only). Without this, an attempt waiting for an absent
 * collector held the expiry until its 60 s schedule-to-start timeout (45 s late; ADR 0009,
 * ADR 0009). Safe only with an activity proxy whose `cancellationType` is `WAIT_CANCELLATION_COMPLETED`:
 * the cancel then only stops an attempt no collector has started, and a started one (maybe already on
 * the wire) is waited for and its own outcome kept.
 *
 * Commands, in order: (when `msToDeadline` is defined) the patch marker, the activity, then a timer of
 * `msToDeadline` ms, cancelled once the attempt settles; without a deadline, or in a history from before
 * the patch, the activity alone.
 *
 * @param dispatch the attempt, e.g. a proxied `dispatchWhatsAppMessage`; called once with `args`.
 * @param msToDeadline milliseconds until `deliver_by` (0 once passed), or undefined without a deadline.
 * @throws whatever the attempt rejects with (an `ActivityFailure` for a proxied activity); a cancellation
 *   (an `ActivityFailure` caused by `CancelledFailure`: test with `isCancellation`) when the deadline won
 *   and cancelled an attempt that had not started.
 */
export async function dispatchBeforeDeadline<Args>(
  dispatch: (args: Args) => Promise<void>,
  args: Args,
  msToDeadline: number | undefined
): Promise<void> {
  if (msToDeadline === undefined || !patched(DISPATCH_BOUNDED_BY_DELIVER_BY_PATCH)) {
    await dispatch(args);
    return;
  }
  const attemptScope = new CancellationScope();
  const deadlineScope = new CancellationScope();
  const attempt = attemptScope.run(() => dispatch(args));
  void deadlineScope
    .run(() => sleep(msToDeadline))
    .then(
      () => attemptScope.cancel(),
      () => undefined
    );
  try {
    await attempt;
  } finally {
    deadlineScope.cancel();
  }
}
