import type { Logger } from '../common/logger.js';
import { jidNormalizedUser } from '../common/whatsapp-jid.js';

/** Event type of a session change the collector reports about itself (ADR 0016). */
export const SESSION_EVENT_TYPE = 'collector.session';
/** Event type of the collector's periodic "still observing" beat (ADR 0016). */
export const HEARTBEAT_EVENT_TYPE = 'collector.heartbeat';

/**
 * Payload of both event types: which account observed, when (epoch ms), whether its session is open, the
 * groups it was a member of at that time, and the beat interval the lake may wait before calling the time
 * after a beat unobserved (2 × `interval_ms`, architecture.md §13).
 */
export interface CoverageBeatPayload {
  account_jid: string;
  /**
   * The account's LID when the session knows it: each collector's beats are rows of their own, so the lake learns
   * every account's JIDs from them whichever collector's copy of a shared event it stored (ADR 0019).
   */
  account_lid?: string;
  at_ms: number;
  state: 'open' | 'closed';
  interval_ms: number;
  /** Group JIDs the account participated in (`groupFetchAllParticipating` of the last open). */
  groups: string[];
  /** Why the session closed (`reconnecting`, `logged_out`, `stopped`, …); only on `closed`. */
  reason?: string;
}

/** Options of {@link CoverageBeats}; `intervalMs` is `COVERAGE_HEARTBEAT_INTERVAL_MS`. */
export interface CoverageBeatsOptions {
  /** The collector's `EventPipeline` (its `handle` result is not needed). */
  pipeline: { handle(eventName: string, data: unknown, capturedAt: Date): unknown };
  logger: Logger;
  getSelfJid: () => string | null;
  /** The account's LID (`user.lid`), sent as `account_lid`; absent or null: not sent. */
  getSelfLid?: () => string | null;
  intervalMs: number;
  now?: () => number;
}

/**
 * The collector's own record of when it observed (ADR 0016): a `collector.session` event when the
 * session opens (after the group snapshots, with the groups) and when it stops being open, and a
 * `collector.heartbeat` every `intervalMs` while open. They go through the outbox, Temporal and the lake like
 * any event, so they survive the same faults, and the lake's `whatsapp_coverage` is derived from them. A
 * crash sends no close: the missing beats end the observed period instead.
 */
export class CoverageBeats {
  private timer: NodeJS.Timeout | null = null;
  private groups: string[] = [];
  private isOpen = false;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly options: CoverageBeatsOptions) {
    this.logger = options.logger.child({ component: 'coverage-beats' });
    this.now = options.now ?? Date.now;
  }

  /** The session opened and its group snapshots were taken (`groups` null: the fetch failed; the last list stays). */
  onOpen(groups: readonly string[] | null): void {
    if (groups) this.groups = [...groups].sort();
    this.isOpen = true;
    this.emit(SESSION_EVENT_TYPE, 'open');
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => this.beat(), this.options.intervalMs);
    this.timer.unref();
  }

  /** The session left `open` (`reason`: the new state); nothing when it was not open. */
  onClosed(reason: string): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.isOpen) return;
    this.isOpen = false;
    this.emit(SESSION_EVENT_TYPE, 'closed', reason);
  }

  /** True between an open and the next close. */
  isObserving(): boolean {
    return this.isOpen;
  }

  /** One heartbeat now, when open (the timer calls it; tests call it directly). */
  beat(): void {
    if (this.isOpen) this.emit(HEARTBEAT_EVENT_TYPE, 'open');
  }

  private emit(type: string, state: 'open' | 'closed', reason?: string): void {
    const self = this.options.getSelfJid();
    if (self === null) return;
    const lid = this.options.getSelfLid?.() ?? null;
    const payload: CoverageBeatPayload = {
      account_jid: jidNormalizedUser(self),
      ...(lid !== null ? { account_lid: jidNormalizedUser(lid) } : {}),
      at_ms: this.now(),
      state,
      interval_ms: this.options.intervalMs,
      groups: this.groups,
      ...(reason !== undefined ? { reason } : {}),
    };
    try {
      this.options.pipeline.handle(type, payload, new Date(payload.at_ms));
    } catch (err) {
      // A lost beat only shortens the observed period; it must never stop the session.
      this.logger.warn({ err, type }, 'cannot store coverage beat');
    }
  }
}
