import type { Logger } from 'pino';

/** A started component and how to stop it, in the order it was started. */
export interface StartedComponent {
  name: string;
  stop(): Promise<void>;
}

/**
 * Stops components in reverse start order; every stop runs even when an earlier one fails, so no
 * process or port is left behind (issue #2: Ctrl-C stops everything cleanly).
 */
export async function stopAll(components: StartedComponent[], logger: Logger): Promise<void> {
  for (const component of [...components].reverse()) {
    try {
      await component.stop();
      logger.info({ component: component.name }, 'component stopped');
    } catch (err) {
      logger.error({ component: component.name, err }, 'component failed to stop cleanly');
    }
  }
}
