import type pg from 'pg';
import type { Logger } from '../common/logger.js';
import { foldMemberDayDeltas } from './db/member-day-deltas.js';

/** While the fold keeps failing, its warning is repeated at most this often (ms), with the failures since. */
export const FOLD_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Folds the engagement rollup deltas (ADR 0012) every `intervalMs` in the ingest API process, one run at a
 * time (the next is timed from the end of the last). Readers see exact numbers without it (the view
 * `engagement_member_day_totals` adds pending deltas); the fold keeps that view cheap. A failing run is
 * retried at the next tick; the first failure is logged at once, then one warning per
 * {@link FOLD_FAILURE_LOG_INTERVAL_MS} with the count, and the recovery once — not one line per tick.
 * Several replicas may run it: one folds per tick.
 *
 * @param options.intervalMs - pause between runs, in ms (`ENGAGEMENT_FOLD_INTERVAL_MS`).
 * @returns `stop()`: clears the timer, waits for a run in progress, then folds once more, so a clean stop
 *   leaves no delta behind.
 */
export function startMemberDayFoldSchedule(options: { pool: pg.Pool; intervalMs: number; logger: Logger }): {
  stop(): Promise<void>;
} {
  const log = options.logger.child({ component: 'engagement-fold' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let isStopped = false;
  let failures = 0;
  let unloggedFailures = 0;
  let lastWarnedAt = 0;
  const onFolded = (deltas: number): void => {
    if (failures > 0) log.info({ failures }, 'engagement rollup fold works again');
    failures = 0;
    unloggedFailures = 0;
    log.debug({ deltas }, 'engagement rollup deltas folded');
  };
  const onFailed = (err: unknown): void => {
    failures += 1;
    unloggedFailures += 1;
    const now = Date.now();
    if (failures > 1 && now - lastWarnedAt < FOLD_FAILURE_LOG_INTERVAL_MS) return;
    log.warn({ err, failures: unloggedFailures }, 'engagement rollup fold failed; retrying at the next interval');
    lastWarnedAt = now;
    unloggedFailures = 0;
  };
  const fold = (): Promise<void> => foldMemberDayDeltas(options.pool).then(onFolded, onFailed);
  const schedule = (): void => {
    timer = setTimeout(() => {
      running = fold().then(() => {
        if (!isStopped) schedule();
      });
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      isStopped = true;
      clearTimeout(timer);
      await running;
      await fold();
    },
  };
}
