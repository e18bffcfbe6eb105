import type { Logger } from '../../common/logger.js';
import type { EngagementReportOptions, KeptEngagementReports } from '../../lake/index.js';

/** A running refresher; `stop` waits for a recount in progress. */
export interface KeptReportRefresher {
  stop(): Promise<void>;
}

/**
 * Keeps the dashboard's kept reports within their age limit (ADR 0034): counts `warm` (the overview) once at start,
 * then every `intervalMs` recounts the reports asked for lately that are past half their limit, one recount at a
 * time. A failed round is logged and tried again on the next tick: a page asked for meanwhile counts for itself.
 */
export function startKeptReportRefresher(
  kept: KeptEngagementReports,
  options: { intervalMs: number; warm: EngagementReportOptions; logger: Logger }
): KeptReportRefresher {
  let busy = true;
  const run = async (step: () => Promise<unknown>, what: string): Promise<void> => {
    const started = performance.now();
    try {
      const result = await step();
      options.logger.debug({ what, result, ms: Math.round(performance.now() - started) }, 'kept reports refreshed');
    } catch (err) {
      options.logger.warn({ err, what }, 'kept reports not refreshed; the next round tries again');
    } finally {
      busy = false;
    }
  };
  let round = run(() => kept.read(options.warm).then(() => 'overview'), 'overview');
  // A tick while a round still runs is skipped, so rounds never queue up behind a slow lake.
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    round = run(() => kept.refreshDue(), 'due');
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await round;
    },
  };
}
