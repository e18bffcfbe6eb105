import { formatStateCounts, isFinalSendState, type ChaosSendRow } from './chaos-send-measure.js';

/**
 * How long the send phase waits without any message changing state before it gives up: longer than the
 * longest pause of a healthy `sendMessage`, its 5-minute retry backoff cap, so a message that is only
 * waiting out a backoff is never taken for a stuck one.
 */
export const DEFAULT_SETTLE_IDLE_MS = 6 * 60_000;

/** Options of {@link waitUntilSettled}; durations in ms. */
export interface SettleOptions {
  /** Reads the phase's rows from the lake. */
  readRows: () => Promise<ChaosSendRow[]>;
  /** Gives up after this long without progress (a message changing state). */
  idleMs: number;
  pollMs?: number;
  /** How often a progress line is written. */
  reportEveryMs?: number;
  onProgress?: (line: string) => void;
  /** More to say on a progress line about the rows read (for example the wire against the lake). */
  describe?: (rows: readonly ChaosSendRow[]) => string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** How the wait ended. */
export interface SettleOutcome {
  rows: ChaosSendRow[];
  /** Whether every row reached a final state (else no row changed state for `idleMs`). */
  isSettled: boolean;
  waitedMs: number;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function progressKey(rows: readonly ChaosSendRow[]): string {
  return rows
    .map((row) => `${row.id}=${row.state}`)
    .sort()
    .join(';');
}

/**
 * Waits until every accepted message of the send phase is in a final state, for as long as messages keep
 * moving: a fixed wall clock failed runs on a loaded machine that were still making progress, and it would
 * have to grow with the message count. Progress is any row changing state (or a new row).
 */
export async function waitUntilSettled(options: SettleOptions): Promise<SettleOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const startedAtMs = now();
  let rows = await options.readRows();
  let lastKey = progressKey(rows);
  let lastProgressMs = startedAtMs;
  let lastReportMs = Number.NEGATIVE_INFINITY;
  for (;;) {
    const open = rows.filter((row) => !isFinalSendState(row.state));
    if (open.length === 0) return { rows, isSettled: true, waitedMs: now() - startedAtMs };
    if (now() - lastProgressMs >= options.idleMs) return { rows, isSettled: false, waitedMs: now() - startedAtMs };
    if (now() - lastReportMs >= (options.reportEveryMs ?? 30_000)) {
      lastReportMs = now();
      const counts: Record<string, number> = {};
      for (const row of open) counts[row.state] = (counts[row.state] ?? 0) + 1;
      const idleS = Math.round((now() - lastProgressMs) / 1000);
      const more = options.describe ? `; ${options.describe(rows)}` : '';
      options.onProgress?.(
        `settling: ${open.length} of ${rows.length} not final (${formatStateCounts(counts)}), idle ${idleS} s${more}`
      );
    }
    await sleep(options.pollMs ?? 2_000);
    rows = await options.readRows();
    const key = progressKey(rows);
    if (key !== lastKey) {
      lastKey = key;
      lastProgressMs = now();
    }
  }
}
