import type { Alert, AlertSink } from '../common/alert-sink.js';
import type { Logger } from '../common/logger.js';
import type { OutboxState, OutboxStore } from './outbox-store.js';

/** Alert kinds raised by the monitor (dedup keys of the alert sink). */
export const OUTBOX_ALERT_KINDS = {
  pendingHigh: 'outbox_pending_high',
  pendingStale: 'outbox_pending_stale',
  deadItems: 'outbox_dead_items',
} as const;

/** Options of {@link OutboxMonitor}. */
export interface OutboxMonitorOptions {
  outbox: OutboxStore;
  alertSink: AlertSink;
  logger: Logger;
  /** Alert when more rows than this are `pending`. */
  pendingThreshold: number;
  /** Alert when the oldest `pending` row is older than this, in ms. */
  oldestPendingAgeThresholdMs: number;
  /** Each alert kind is raised at most once per window, in ms (even with a sink that does not dedup). */
  windowMs: number;
  /** Clock in ms since the epoch (default `Date.now`). */
  now?: () => number;
  /**
   * Where the dead-row count already reported survives a restart (old dead rows are
   * not reported again as new). Without it the count starts at 0 in each process.
   */
  deadCountMark?: { read(): number | null; write(value: number): void };
}

/** Result of one check. */
export interface OutboxHealth {
  counts: Record<OutboxState, number>;
  /** Age of the oldest `pending` row in ms, or null when nothing is pending. */
  oldestPendingAgeMs: number | null;
  /** Kinds raised by this check (after the window); empty on a quiet or suppressed tick. */
  alertsRaised: string[];
}

/**
 * Watches the outbox and raises alerts (architecture.md §5): too many `pending` rows, the oldest `pending`
 * row too old, and new `dead` rows. Each kind is raised at most once per `windowMs` however many
 * ticks see the condition — never once per tick.
 */
export class OutboxMonitor {
  private readonly lastRaisedAt = new Map<string, number>();
  private lastDeadCount: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly options: OutboxMonitorOptions) {
    this.logger = options.logger.child({ component: 'outbox-monitor' });
    this.now = options.now ?? Date.now;
  }

  /** One tick: reads counts and the oldest pending row, raises due alerts. Never throws for a failing sink. */
  async check(): Promise<OutboxHealth> {
    const nowMs = this.now();
    const counts = this.options.outbox.countByState();
    const oldest = this.options.outbox.oldestPendingCreatedAt();
    const oldestPendingAgeMs = oldest === null ? null : Math.max(0, nowMs - oldest);
    const due: Alert[] = [];
    if (counts.pending > this.options.pendingThreshold) {
      due.push({
        kind: OUTBOX_ALERT_KINDS.pendingHigh,
        severity: 'warning',
        message: 'The outbox holds more pending events than the threshold; delivery is not keeping up.',
        details: { pending: counts.pending, threshold: this.options.pendingThreshold },
      });
    }
    if (oldestPendingAgeMs !== null && oldestPendingAgeMs > this.options.oldestPendingAgeThresholdMs) {
      due.push({
        kind: OUTBOX_ALERT_KINDS.pendingStale,
        severity: 'warning',
        message: 'The oldest pending outbox event is older than the threshold; delivery may be stuck.',
        details: { oldestPendingAgeMs, thresholdMs: this.options.oldestPendingAgeThresholdMs },
      });
    }
    this.lastDeadCount ??= this.options.deadCountMark?.read() ?? 0;
    if (counts.dead > this.lastDeadCount) {
      due.push({
        kind: OUTBOX_ALERT_KINDS.deadItems,
        severity: 'error',
        message: 'Events were quarantined as dead in the outbox; an operator must look at them.',
        details: { dead: counts.dead },
      });
    }
    if (counts.dead !== this.lastDeadCount) this.options.deadCountMark?.write(counts.dead);
    this.lastDeadCount = counts.dead;
    const alertsRaised: string[] = [];
    for (const alert of due) {
      const last = this.lastRaisedAt.get(alert.kind);
      if (last !== undefined && nowMs - last < this.options.windowMs) continue;
      this.lastRaisedAt.set(alert.kind, nowMs);
      alertsRaised.push(alert.kind);
      await this.send(alert);
    }
    return { counts, oldestPendingAgeMs, alertsRaised };
  }

  /** Runs `check` every `intervalMs` until `stop`; the timer does not keep the process alive. */
  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(
      () => void this.check().catch((err: unknown) => this.logger.warn({ err }, 'outbox check failed')),
      intervalMs
    );
    this.timer.unref();
  }

  /** Stops the periodic check (idempotent). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async send(alert: Alert): Promise<void> {
    try {
      await this.options.alertSink.send(alert);
    } catch (err) {
      this.logger.warn({ err, kind: alert.kind }, 'alert sink failed');
    }
  }
}
