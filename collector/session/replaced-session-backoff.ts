/** A 440 that arrives within this long after the reconnect it answers continues a fight. */
export const REPLACED_FIGHT_GAP_MS = 60_000;
/** The 440 at which the fight is recognised: from this one on, the reconnect waits at least the minimum below. */
export const REPLACED_FIGHT_COUNT = 3;
/** Wait before the reconnect after the {@link REPLACED_FIGHT_COUNT}th 440; doubles with each further one. */
export const REPLACED_FIGHT_MIN_DELAY_MS = 30_000;

/** Options of {@link ReplacedSessionBackoff}; durations in ms. */
export interface ReplacedSessionBackoffOptions {
  /** Ceiling of the grown delay (the session's `SESSION_RECONNECT_MAX_DELAY_MS`; never below the minimum). */
  maxDelayMs: number;
  now?: () => number;
}

/**
 * Backs off two collectors that share one WhatsApp session (440 "connection replaced" each time the
 * other one connects). Without it each side reconnects after the ordinary 2–8 s backoff and takes the
 * session back, forever. A 440 continues a fight when it arrives within {@link REPLACED_FIGHT_GAP_MS}
 * of the reconnect that answered the previous one; from the {@link REPLACED_FIGHT_COUNT}th such 440 the
 * reconnect waits at least {@link REPLACED_FIGHT_MIN_DELAY_MS}, doubling each time, up to `maxDelayMs`.
 * A connection that survives longer than the gap ends the fight. Source:, architecture.md §10.
 */
export class ReplacedSessionBackoff {
  private fightLength = 0;
  private lastReconnectAtMs: number | null = null;
  private readonly now: () => number;

  constructor(private readonly options: ReplacedSessionBackoffOptions) {
    this.now = options.now ?? Date.now;
  }

  /** True when the last recorded 440 was part of a recognised fight (raise `session_replaced`). */
  get isFighting(): boolean {
    return this.fightLength >= REPLACED_FIGHT_COUNT;
  }

  /**
   * Records one 440 and returns the delay to use before reconnecting.
   * @param ordinaryDelayMs - what the ordinary {@link ReconnectBackoff} proposed, in ms.
   * @returns `ordinaryDelayMs`, or the fight delay when that is longer (ms).
   */
  recordReplaced(ordinaryDelayMs: number): number {
    const nowMs = this.now();
    const continuesFight = this.lastReconnectAtMs !== null && nowMs - this.lastReconnectAtMs <= REPLACED_FIGHT_GAP_MS;
    this.fightLength = continuesFight ? this.fightLength + 1 : 1;
    let delayMs = ordinaryDelayMs;
    if (this.isFighting) {
      const ceilingMs = Math.max(REPLACED_FIGHT_MIN_DELAY_MS, this.options.maxDelayMs);
      const doublings = Math.min(this.fightLength - REPLACED_FIGHT_COUNT, 20);
      delayMs = Math.max(ordinaryDelayMs, Math.min(ceilingMs, REPLACED_FIGHT_MIN_DELAY_MS * 2 ** doublings));
    }
    this.lastReconnectAtMs = nowMs + delayMs;
    return delayMs;
  }
}
