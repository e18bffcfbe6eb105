/**
 * States and categories of an outbound message (architecture.md §12, ADR 0009): plain values with no import, so the
 * lake and the CLI read them without loading the Temporal SDK. Wire names here are stored in the lake and in
 * histories: renaming one is a breaking change.
 */
/** Categories a caller may send, highest priority first (architecture.md §12: otp before transactional before marketing). */
export const SEND_CATEGORIES = ['otp', 'transactional', 'marketing'] as const;
export type SendCategory = (typeof SEND_CATEGORIES)[number];

/** Lifecycle of one outbound message (architecture.md §12). */
export const SEND_STATES = ['queued', 'dispatched', 'sent', 'delivered', 'read', 'failed', 'expired'] as const;
export type SendState = (typeof SEND_STATES)[number];

/** States after which nothing changes any more. */
export const FINAL_SEND_STATES: ReadonlySet<SendState> = new Set(['read', 'failed', 'expired']);

/**
 * Rank of a state on the forward path; a transition is applied only to a higher rank, so a late
 * `delivered` after `read` changes nothing (monotonic, architecture.md §12). `failed`/`expired` end everything.
 */
export const SEND_STATE_RANK: Readonly<Record<SendState, number>> = {
  queued: 0,
  dispatched: 1,
  sent: 2,
  delivered: 3,
  read: 4,
  failed: 5,
  expired: 5,
};

/** Whether moving from `from` to `to` is allowed (strictly forward; nothing leaves a final state). */
export function isForwardTransition(from: SendState, to: SendState): boolean {
  if (FINAL_SEND_STATES.has(from)) return false;
  return SEND_STATE_RANK[to] > SEND_STATE_RANK[from];
}
