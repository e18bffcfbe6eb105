import type { DispatchRequest } from './send-contracts.js';

/**
 * Per-recipient pacing of the send gate (ADR 0015): at most one grant per recipient per
 * `intervalMs`, without holding back requests to other recipients. Pure and deterministic (workflow code):
 * times come from the caller (workflow time). Requests without `recipientJid` (older workflows) are never paced.
 */
export class RecipientPacing {
  constructor(
    private readonly intervalMs: number,
    private readonly lastGrantByRecipient: Record<string, number>
  ) {}

  /** Whether pacing applies at all (an interval above 0). */
  get isOn(): boolean {
    return this.intervalMs > 0;
  }

  private dueAtMs(request: DispatchRequest): number {
    const last = request.recipientJid === undefined ? undefined : this.lastGrantByRecipient[request.recipientJid];
    return last === undefined ? 0 : last + this.intervalMs;
  }

  /** Index of the first request in `queue` (already in priority order) whose recipient may be granted now; -1 if none. */
  firstEligible(queue: readonly DispatchRequest[], nowMs: number): number {
    if (!this.isOn) return queue.length > 0 ? 0 : -1;
    return queue.findIndex((request) => this.dueAtMs(request) <= nowMs);
  }

  /** Milliseconds until the first queued request becomes eligible (at least 1). */
  waitMs(queue: readonly DispatchRequest[], nowMs: number): number {
    const due = Math.min(...queue.map((request) => this.dueAtMs(request)));
    return Math.max(1, due - nowMs);
  }

  /** Records a grant, and forgets recipients whose interval has passed (the carry stays small). */
  record(request: DispatchRequest, grantedAtMs: number): void {
    if (!this.isOn || request.recipientJid === undefined) return;
    for (const [jid, atMs] of Object.entries(this.lastGrantByRecipient)) {
      if (atMs + this.intervalMs <= grantedAtMs) delete this.lastGrantByRecipient[jid];
    }
    this.lastGrantByRecipient[request.recipientJid] = grantedAtMs;
  }

  /** The state to carry across continue-as-new. */
  snapshot(): Record<string, number> {
    return { ...this.lastGrantByRecipient };
  }
}
