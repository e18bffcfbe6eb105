import type pg from 'pg';
import type { Logger } from '../common/logger.js';
import { foldMemberDayDeltas } from './db/member-day-deltas.js';

/**
 * Folds the engagement rollup deltas (ADR 0012) every `intervalMs` in the ingest API process, one run at a
 * time (the next is timed from the end of the last). Readers see exact numbers without it (the view
 * `engagement_member_day_totals` adds pending deltas); the fold keeps that view cheap. A failing run is
 * logged and retried at the next tick. Several replicas may run it: one folds per tick.
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
  const fold = (): Promise<void> =>
    foldMemberDayDeltas(options.pool).then(
      (deltas) => log.debug({ deltas }, 'engagement rollup deltas folded'),
      (err: unknown) => log.warn({ err }, 'engagement rollup fold failed; retrying at the next interval')
    );
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
