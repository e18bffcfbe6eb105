import type { Logger } from '../common/logger.js';
import { HistoryProgressMeter, type HistoryImportStatus } from './history-progress.js';

/** The Baileys event that carries a history push (ADR 0016). */
const HISTORY_EVENT = 'messaging-history.set';

/**
 * Follows a history import for the operator, the same way for a live session and a replay (ADR 0016 "Progress while
 * it runs"): one `history import progress` record per `messaging-history.set` push, and the status file rewritten
 * at most once a second as pushes arrive (through `refresh`, the heartbeat's), a push inside that second written
 * when it ends, so the last push of an import (its 100 %) is never left for the next heartbeat a minute later.
 */
export class HistoryImportReporter {
  private readonly meter: HistoryProgressMeter;
  private readonly now: () => number;
  private refresh: () => void = () => undefined;
  private refreshedAtMs = 0;
  private pendingRefresh: NodeJS.Timeout | null = null;

  constructor(private readonly deps: { logger: Logger; now?: () => number }) {
    this.now = deps.now ?? Date.now;
    this.meter = new HistoryProgressMeter(this.now);
  }

  /** Sets what rewrites the status file (the heartbeat is built after the source that feeds this reporter). */
  attach(refresh: () => void): void {
    this.refresh = refresh;
  }

  /** Records one event the pipeline handled, `kept` of its items went to the outbox; other events are ignored. */
  onEvent(event: string, data: unknown, kept: number): void {
    if (event !== HISTORY_EVENT) return;
    const push = (data as { progress?: unknown; syncType?: unknown } | null) ?? {};
    this.deps.logger.info(
      { syncType: push.syncType, ...this.meter.record(kept, push.progress, push.syncType) },
      'history import progress'
    );
    const waitMs = this.refreshedAtMs + 1_000 - this.now();
    if (waitMs <= 0) this.refreshNow();
    else this.pendingRefresh ??= setTimeout(() => this.refreshNow(), waitMs).unref();
  }

  /** The last import (running, or the one that ended last) for the status file; null before the first push. */
  status(): HistoryImportStatus | null {
    return this.meter.status();
  }

  /** Drops a status rewrite still waiting for its second (the heartbeat's stop writes the last status). */
  stop(): void {
    if (this.pendingRefresh) clearTimeout(this.pendingRefresh);
    this.pendingRefresh = null;
  }

  private refreshNow(): void {
    this.pendingRefresh = null;
    this.refreshedAtMs = this.now();
    this.refresh();
  }
}
