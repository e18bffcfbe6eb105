import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../common/logger.js';
import { makeDirectory } from '../common/make-directory.js';
import type { HistoryImportStatus } from './history-progress.js';

/** Outbox row counts by state, as `OutboxStore.countByState()` returns them. */
export type OutboxCounts = Record<'pending' | 'started' | 'dead', number>;

/** What the collector knows about itself at one moment (input of each beat). */
export interface CollectorSnapshot {
  /** `live` or `replay`. */
  mode: 'live' | 'replay';
  /** Session state name, e.g. `open`, `reconnecting`, `logged_out`, `replay`. */
  sessionState: string;
  /** ISO time of the last session state change. */
  sessionStateSince: string;
  outbox: OutboxCounts;
  /** Age of the oldest pending row in ms, or null when nothing is pending. */
  oldestPendingAgeMs: number | null;
  /** The last history import (ADR 0016); null or absent before the first push. */
  historyImport?: HistoryImportStatus | null;
}

/** Content of the status file read by `wa-lake status` (architecture.md §10). */
export interface CollectorStatus extends CollectorSnapshot {
  pid: number;
  startedAt: string;
  lastHeartbeatAt: string;
  /**
   * ISO time of a clean stop ({@link Heartbeat.stop}), null while the collector runs. A crash leaves it
   * null: only the heartbeat's age tells that one apart.
   */
  stoppedAt: string | null;
  /**
   * ISO time since when the live session has had no WhatsApp connection (`open`): since start when it never
   * connected, since the drop otherwise; null while connected and in replay. The healthcheck fails once this
   * is older than `HEALTHCHECK_WHATSAPP_DOWN_MS` (ADR 0018).
   */
  sessionDownSince: string | null;
  /**
   * Rows the outbox handed to Temporal per second between the last two beats (null before the second beat): with
   * `outbox.pending`, how long the rows waiting (a history import's, say) take to reach the lake.
   */
  outboxDrainPerSecond: number | null;
}

/**
 * Logs one `collector heartbeat` record at `info` every `intervalMs` (default 60 s) and rewrites a
 * small JSON status file atomically (temp file + rename) so `wa-lake status` can read session state,
 * outbox counts and the last heartbeat from another process. Source: architecture.md §10.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  private stoppedAt: string | null = null;
  private sessionDownSince: string | null;
  private lastDrain: { started: number; atMs: number } | null = null;
  private outboxDrainPerSecond: number | null = null;
  private lastBeatAt: string | null = null;
  private readonly startedAt: string;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(
    private readonly deps: {
      logger: Logger;
      /** Path of the JSON status file. */
      statusPath: string;
      intervalMs: number;
      getSnapshot: () => CollectorSnapshot;
      now?: () => number;
    }
  ) {
    this.logger = deps.logger.child({ component: 'heartbeat' });
    this.now = deps.now ?? Date.now;
    this.startedAt = new Date(this.now()).toISOString();
    this.sessionDownSince = this.startedAt;
  }

  /** Beats once now, then every `intervalMs`; calling it twice has no effect. */
  start(): void {
    if (this.timer) return;
    this.beat();
    this.timer = setInterval(() => this.beat(), this.deps.intervalMs);
    this.timer.unref();
  }

  /**
   * Logs one heartbeat and rewrites the status file. A write failure is logged at `warn`, never thrown.
   * @returns the status that was written.
   */
  beat(): CollectorStatus {
    const snapshot = this.deps.getSnapshot();
    if (snapshot.mode === 'replay' || snapshot.sessionState === 'open') this.sessionDownSince = null;
    else this.sessionDownSince ??= snapshot.sessionStateSince;
    this.measureDrain(snapshot.outbox.started);
    const status = this.writeStatus(snapshot);
    this.logger.info(
      {
        sessionState: status.sessionState,
        pending: status.outbox.pending,
        started: status.outbox.started,
        dead: status.outbox.dead,
        oldestPendingAgeMs: status.oldestPendingAgeMs,
        // The log alone tells a history import's progress to the lake: rows handed to Temporal per second and
        // how long the pending ones take at that rate (ADR 0016), as `wa-lake status` prints them.
        outboxDrainPerSecond: status.outboxDrainPerSecond,
        pendingEtaMs: pendingEtaMs(status.outbox.pending, status.outboxDrainPerSecond),
      },
      'collector heartbeat'
    );
    return status;
  }

  /**
   * Rewrites the status file between beats, without a log record or a new drain measurement: a history import
   * reports its progress as its pushes arrive, not once a minute. The last heartbeat time stays the beat's.
   */
  refresh(): void {
    this.writeStatus(this.deps.getSnapshot(), this.lastBeatAt);
  }

  private measureDrain(started: number): void {
    const atMs = this.now();
    const last = this.lastDrain;
    // Pruning lowers the started count; that interval says nothing about the drain.
    if (last !== null && atMs > last.atMs && started >= last.started)
      this.outboxDrainPerSecond = Math.round(((started - last.started) / (atMs - last.atMs)) * 10_000) / 10;
    this.lastDrain = { started, atMs };
  }

  private writeStatus(snapshot: CollectorSnapshot, lastHeartbeatAt: string | null = null): CollectorStatus {
    const status: CollectorStatus = {
      ...snapshot,
      pid: process.pid,
      startedAt: this.startedAt,
      lastHeartbeatAt: lastHeartbeatAt ?? new Date(this.now()).toISOString(),
      stoppedAt: this.stoppedAt,
      sessionDownSince: this.sessionDownSince,
      outboxDrainPerSecond: this.outboxDrainPerSecond,
    };
    if (lastHeartbeatAt === null) this.lastBeatAt = status.lastHeartbeatAt;
    try {
      makeDirectory(dirname(this.deps.statusPath));
      const temporary = `${this.deps.statusPath}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(status, null, 2)}\n`);
      renameSync(temporary, this.deps.statusPath);
    } catch (err) {
      this.logger.warn({ err, statusPath: this.deps.statusPath }, 'cannot write collector status file');
    }
    return status;
  }

  /**
   * Stops the timer and writes a last status that records the clean stop (`stoppedAt`), so `wa-lake
   * status` says "stopped" at once instead of "healthy" until the heartbeat goes stale.
   */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stoppedAt = new Date(this.now()).toISOString();
    this.beat();
  }
}

/**
 * How long `pending` outbox rows take to reach Temporal at `drainPerSecond`: 0 when none wait, null when there is no
 * rate yet or nothing drains.
 */
export function pendingEtaMs(pending: number, drainPerSecond: number | null): number | null {
  if (pending === 0) return 0;
  if (drainPerSecond === null || drainPerSecond <= 0) return null;
  return Math.round((pending / drainPerSecond) * 1000);
}

/**
 * Reads the collector status file written by {@link Heartbeat}.
 * @param path - the status file (`CollectorConfig.statusPath`).
 * @returns the status, or null when the file is missing or unreadable (collector never ran here).
 */
export function readCollectorStatus(path: string): CollectorStatus | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CollectorStatus>;
    if (typeof parsed.lastHeartbeatAt !== 'string' || typeof parsed.sessionState !== 'string') return null;
    // A file written before `stoppedAt` existed has none: that collector's stop was not recorded.
    return {
      ...parsed,
      stoppedAt: typeof parsed.stoppedAt === 'string' ? parsed.stoppedAt : null,
      sessionDownSince: typeof parsed.sessionDownSince === 'string' ? parsed.sessionDownSince : null,
      outboxDrainPerSecond: typeof parsed.outboxDrainPerSecond === 'number' ? parsed.outboxDrainPerSecond : null,
      historyImport: isHistoryImportStatus(parsed.historyImport) ? parsed.historyImport : null,
    } as CollectorStatus;
  } catch {
    return null;
  }
}

/** A status file from another version may lack the import or hold another shape: only a whole one is shown. */
function isHistoryImportStatus(value: unknown): value is HistoryImportStatus {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['items'] === 'number' &&
    typeof record['pushes'] === 'number' &&
    (typeof record['itemsPerSecond'] === 'number' || record['itemsPerSecond'] === null) &&
    typeof record['updatedAt'] === 'string' &&
    typeof record['isDone'] === 'boolean'
  );
}
