/** One progress report of a long operation (ADR 0017): how far, how fast, how long still. */
export interface ProgressReport {
  /** What is being counted through, e.g. `projections` or `message bodies`. */
  phase: string;
  done: number;
  total: number;
  /** 0–100, whole; 100 when there is nothing to do. */
  percent: number;
  /** Items per second since the start, whole. */
  perSecond: number;
  /** Seconds left at the same pace; null before anything was done. */
  etaSeconds: number | null;
}

/** A callback that receives progress reports (`wa-lake rebuild` and `retention apply` print them). */
export type ProgressListener = (report: ProgressReport) => void;

/**
 * Counts a long operation through `total` items and reports its share done, its rate and its ETA (`wa-lake
 * rebuild`, `retention apply`; ADR 0017). The clock is injected, so tests decide the time.
 */
export class ProgressMeter {
  private done = 0;
  private readonly startedAtMs: number;

  constructor(
    private readonly phase: string,
    private readonly total: number,
    private readonly now: () => number = Date.now
  ) {
    this.startedAtMs = now();
  }

  /** Adds `count` items done and returns the report. */
  advance(count: number): ProgressReport {
    this.done += count;
    const elapsedMs = Math.max(this.now() - this.startedAtMs, 1);
    const done = this.done;
    // Rows added after the count make `done` pass it: the total follows instead of reporting over 100 %.
    const total = Math.max(this.total, done);
    const left = total - done;
    return {
      phase: this.phase,
      done,
      total,
      percent: total === 0 ? 100 : Math.floor((done / total) * 100),
      perSecond: Math.round((done / elapsedMs) * 1000),
      etaSeconds: done === 0 ? null : Math.round((elapsedMs * left) / done / 1000),
    };
  }
}
