import type { Logger } from './logger.js';

/**
 * The one teardown of the house, shaped like TC39's `AsyncDisposableStack` (`defer`, `disposeAsync`): what a
 * process starts is deferred in start order and stopped in reverse, so a component never outlives what it uses.
 * Unlike the standard one it never throws: every step runs even when an earlier one fails or, with `stepTimeoutMs`,
 * hangs, so no process, port or file lock is left behind and Ctrl-C always finishes. Failures are logged.
 */
export class TeardownStack {
  private readonly steps: Array<{ name: string; stop: () => unknown }> = [];

  constructor(private readonly options: { logger: Logger; stepTimeoutMs?: number }) {}

  /** Stops `stop` at {@link disposeAsync}, before every step deferred earlier. */
  defer(name: string, stop: () => unknown): void {
    this.steps.push({ name, stop });
  }

  /** Runs every deferred step, last deferred first; a second call finds nothing left to stop. Never throws. */
  async disposeAsync(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await this.runStep(step);
  }

  private async runStep(step: { name: string; stop: () => unknown }): Promise<void> {
    const { logger, stepTimeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed-out'>((resolve) => {
      if (stepTimeoutMs !== undefined) timer = setTimeout(() => resolve('timed-out'), stepTimeoutMs);
    });
    try {
      const stopping = Promise.resolve().then(step.stop);
      const outcome = await Promise.race([stopping.then(() => 'stopped' as const), timedOut]);
      if (outcome === 'timed-out')
        logger.error({ step: step.name, stopTimeoutMs: stepTimeoutMs }, 'component did not stop in time');
      else logger.debug({ step: step.name }, 'component stopped');
    } catch (err) {
      logger.error({ step: step.name, err }, 'component failed to stop cleanly');
    } finally {
      clearTimeout(timer);
    }
  }
}
