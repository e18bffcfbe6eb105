/** Options of {@link ReconnectBackoff}; all durations in ms. */
export interface ReconnectBackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Disconnects older than this no longer raise the delay. */
  windowMs: number;
  now?: () => number;
  random?: () => number;
}

/**
 * Windowed reconnect backoff (architecture.md §10): the delay grows with the number of disconnects in the
 * last `windowMs` — `min(max, base · 2^(n-1))`, jittered into `[delay/2, delay]` — and only
 * shrinks as disconnects age out of the window. A successful `open` does not reset it, so a
 * connection that opens briefly and drops again keeps backing off instead of hammering WhatsApp.
 */
export class ReconnectBackoff {
  private disconnectTimesMs: number[] = [];
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: ReconnectBackoffOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Number of disconnects inside the window, after dropping the expired ones. */
  countInWindow(): number {
    const cutoff = this.now() - this.options.windowMs;
    this.disconnectTimesMs = this.disconnectTimesMs.filter((time) => time > cutoff);
    return this.disconnectTimesMs.length;
  }

  /**
   * Records one disconnect and returns how long to wait before reconnecting.
   * @param isImmediate - the first disconnect of this kind in the window may reconnect at once
   *   (515 restart-required after pairing); repeated ones back off like the rest.
   * @returns delay in ms.
   */
  recordDisconnect(isImmediate = false): number {
    const count = this.countInWindow() + 1;
    this.disconnectTimesMs.push(this.now());
    if (isImmediate && count === 1) return 0;
    const ceilingMs = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** Math.min(count - 1, 30));
    return Math.round(ceilingMs / 2 + (this.random() * ceilingMs) / 2);
  }
}

/**
 * Counts occurrences of one kind of event inside a sliding window (used for repeated 440s and
 * flapping). Source: architecture.md §10.
 */
export class WindowedCounter {
  private timesMs: number[] = [];

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now
  ) {}

  /** Records one occurrence; returns the count inside the window, including it. */
  record(): number {
    const nowMs = this.now();
    this.timesMs = this.timesMs.filter((time) => time > nowMs - this.windowMs);
    this.timesMs.push(nowMs);
    return this.timesMs.length;
  }
}
