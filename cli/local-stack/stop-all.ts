import type { Logger } from 'pino';

/** A started component and how to stop it, in the order it was started. */
export interface StartedComponent {
  name: string;
  stop(): Promise<void>;
}

/** How long one component may take to stop before the next one is stopped anyway. */
export const COMPONENT_STOP_TIMEOUT_MS = 15_000;

/**
 * Stops components in reverse start order; every stop runs even when an earlier one fails or hangs
 * (each gets `stopTimeoutMs`, default {@link COMPONENT_STOP_TIMEOUT_MS}), so no process or port is left
 * behind and Ctrl-C always finishes (Ctrl-C stops everything cleanly). Never throws.
 */
export async function stopAll(
  components: StartedComponent[],
  logger: Logger,
  stopTimeoutMs = COMPONENT_STOP_TIMEOUT_MS
): Promise<void> {
  for (const component of [...components].reverse()) {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed-out'>((resolve) => {
      timer = setTimeout(() => resolve('timed-out'), stopTimeoutMs);
    });
    try {
      const outcome = await Promise.race([component.stop().then(() => 'stopped' as const), timedOut]);
      if (outcome === 'timed-out') {
        logger.error(
          { component: component.name, stopTimeoutMs },
          'component did not stop in time; stopping the next one'
        );
      } else {
        logger.info({ component: component.name }, 'component stopped');
      }
    } catch (err) {
      logger.error({ component: component.name, err }, 'component failed to stop cleanly');
    } finally {
      clearTimeout(timer);
    }
  }
}
