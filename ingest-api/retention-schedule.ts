import type pg from 'pg';
import type { Logger } from '../common/logger.js';
import { redactOldMessageBodies } from '../lake/index.js';

/**
 * Scheduled retention in the ingest API process (architecture.md §14, ADR 0010): every `intervalMs`
 * (first run one interval after start), redacts message bodies older than `periodMs`. Several replicas
 * may run it at once: batches skip rows another run holds. A failing run is logged and retried on the
 * next tick. Same work as `wa-lake retention apply --older-than …`.
 *
 * @returns `stop()`: clears the timer and waits for a run in progress.
 */
export function startRetentionSchedule(options: {
  pool: pg.Pool;
  periodMs: number;
  intervalMs: number;
  logger: Logger;
}): { stop(): Promise<void> } {
  const log = options.logger.child({ component: 'retention' });
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = redactOldMessageBodies(options.pool, new Date(Date.now() - options.periodMs), {
      requestedBy: 'ingest-api schedule',
    }).then(
      (result) => {
        log.info({ redactedEvents: result.redactedEvents, cutoff: result.cutoff }, 'retention applied');
        for (const row of result.skipped)
          log.warn({ eventId: row.eventId, sqlState: row.sqlState }, 'retention skipped an unrenderable row');
      },
      (err: unknown) => log.error({ err }, 'retention run failed; retrying at the next interval')
    );
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  log.info({ periodMs: options.periodMs, intervalMs: options.intervalMs }, 'retention schedule started');
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
