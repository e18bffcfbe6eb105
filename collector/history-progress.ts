/** One progress report of a history import (issue #29 item 5): logged by the collector per push. */
export interface HistoryProgress {
  /** `progress` of the last push (0–100, Baileys' `messaging-history.set`), or null when it gave none. */
  percent: number | null;
  /** Items of every push so far that went to the outbox (kept), and their rate since the first push. */
  items: number;
  itemsPerSecond: number;
  /** Time left at the same pace, from the percentage; null without one. */
  etaMs: number | null;
}

/**
 * Follows the pushes of one history import: rate of kept items since the first push and an ETA from
 * WhatsApp's own `progress` percentage. A push of 100 % ends the import; the next push starts a new one.
 */
export class HistoryProgressMeter {
  private startedAtMs: number | null = null;
  private items = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Records one push with `kept` items and its `progress`; returns the report to log. */
  record(kept: number, progress: unknown): HistoryProgress {
    const nowMs = this.now();
    this.startedAtMs ??= nowMs;
    this.items += kept;
    const elapsedMs = Math.max(nowMs - this.startedAtMs, 1);
    const percent = typeof progress === 'number' && progress >= 0 && progress <= 100 ? progress : null;
    const report: HistoryProgress = {
      percent,
      items: this.items,
      itemsPerSecond: Math.round((this.items / elapsedMs) * 1000),
      etaMs: percent !== null && percent > 0 ? Math.round((elapsedMs * (100 - percent)) / percent) : null,
    };
    if (percent === 100) {
      this.startedAtMs = null;
      this.items = 0;
    }
    return report;
  }
}
