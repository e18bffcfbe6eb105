import type { Logger } from 'pino';

/**
 * Resolves on the first SIGINT or SIGTERM after running `stop`; a second signal while stopping forces
 * exit code 130, so a stuck shutdown never traps the operator (issue #2: Ctrl-C stops everything).
 */
export async function runUntilSignal(stop: () => Promise<void>, logger: Logger): Promise<void> {
  await new Promise<void>((resolve) => {
    let isStopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (isStopping) {
        logger.warn({ signal }, 'second signal while stopping; exiting now');
        process.exit(130);
      }
      isStopping = true;
      logger.info({ signal }, 'stopping');
      stop()
        .catch((err: unknown) => logger.error({ err }, 'error while stopping'))
        .finally(() => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          resolve();
        });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
