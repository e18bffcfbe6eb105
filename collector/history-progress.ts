import { proto } from '@whiskeysockets/baileys';

/** One progress report of a history import: logged by the collector per push (ADR 0016). */
export interface HistoryProgress {
  /** `progress` of the last push (0–100, Baileys' `messaging-history.set`), or null when it gave none. */
  percent: number | null;
  /** Items of every push so far that went to the outbox (kept), and their rate since the first push. */
  items: number;
  /** Null after the first push alone: one push spans no time to measure a rate over. */
  itemsPerSecond: number | null;
  /** Time left at the same pace, from the percentage; null without one, and after the first push alone. */
  etaMs: number | null;
}

/** The last history import as the collector's status file keeps it for `wa-lake status` (ADR 0016). */
export interface HistoryImportStatus extends HistoryProgress {
  /** The push's `syncType` by name (`INITIAL_BOOTSTRAP`, `RECENT`, `ON_DEMAND`, …), or null when it gave none. */
  syncType: string | null;
  pushes: number;
  startedAt: string;
  updatedAt: string;
  /** True once a push said 100 %: the import is over (what it kept may still be on its way through the outbox). */
  isDone: boolean;
}

/** `proto.HistorySync.HistorySyncType` by name, as WhatsApp numbers it (rc14: 0 INITIAL_BOOTSTRAP … 6 ON_DEMAND). */
function syncTypeName(syncType: unknown): string | null {
  if (typeof syncType !== 'number') return null;
  return proto.HistorySync.HistorySyncType[syncType] ?? String(syncType);
}

/**
 * Follows the pushes of one history import: rate of kept items since the first push and an ETA from
 * WhatsApp's own `progress` percentage. A push of 100 % ends the import; the next push starts a new one.
 */
export class HistoryProgressMeter {
  private startedAtMs: number | null = null;
  private items = 0;
  private pushes = 0;
  private last: HistoryImportStatus | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** Records one push with `kept` items, its `progress` and `syncType`; returns the report to log. */
  record(kept: number, progress: unknown, syncType?: unknown): HistoryProgress {
    const nowMs = this.now();
    this.startedAtMs ??= nowMs;
    this.items += kept;
    this.pushes += 1;
    const elapsedMs = Math.max(nowMs - this.startedAtMs, 1);
    const percent = typeof progress === 'number' && progress >= 0 && progress <= 100 ? progress : null;
    const hasInterval = this.pushes > 1;
    const report: HistoryProgress = {
      percent,
      items: this.items,
      itemsPerSecond: hasInterval ? Math.round((this.items / elapsedMs) * 1000) : null,
      etaMs:
        percent === 100
          ? 0
          : hasInterval && percent !== null && percent > 0
            ? Math.round((elapsedMs * (100 - percent)) / percent)
            : null,
    };
    this.last = {
      ...report,
      syncType: syncTypeName(syncType),
      pushes: this.pushes,
      startedAt: new Date(this.startedAtMs).toISOString(),
      updatedAt: new Date(nowMs).toISOString(),
      isDone: percent === 100,
    };
    if (percent === 100) {
      this.startedAtMs = null;
      this.items = 0;
      this.pushes = 0;
    }
    return report;
  }

  /** The last import (running, or the one that ended last); null before the first push. */
  status(): HistoryImportStatus | null {
    return this.last;
  }
}
