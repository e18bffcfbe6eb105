import type { Logger } from '../common/logger.js';
import { killTrackedChildProcesses } from '../dev-stack/child-processes.js';

/** Reason of an aborted {@link ShutdownSignal}: the operator asked to stop (Ctrl-C or SIGTERM). */
export class ShutdownRequestedError extends Error {
  override readonly name = 'ShutdownRequestedError';
  constructor(readonly signal: NodeJS.Signals) {
    super(`stopped by ${signal}`);
  }
}

/** Aborted on the first SIGINT/SIGTERM; `dispose` removes the handlers. */
export interface ShutdownSignal {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * Installs SIGINT/SIGTERM handlers at once, before anything starts, so a Ctrl-C during start-up still
 * stops what was started (nothing left running, no port taken). The first signal aborts
 * `signal`; a second one while stopping kills the spawned servers (Temporal dev server, PostgreSQL) and
 * exits with code 130, so a stuck shutdown never traps the operator.
 */
export function createShutdownSignal(logger: Logger): ShutdownSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      logger.warn({ signal }, 'second signal while stopping; exiting now');
      // The ordered stop has not reached the servers yet; they would outlive us (ports, data files).
      killTrackedChildProcesses();
      process.exit(130);
    }
    logger.info({ signal }, 'stopping');
    controller.abort(new ShutdownRequestedError(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Resolves when `signal` is aborted. */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * Waits for the OS signals SIGINT/SIGTERM (not Temporal signals), then runs `stop` (errors logged, not thrown). For commands whose start-up
 * is a single step; `dev` and `demo` use {@link createShutdownSignal} directly to cover start-up too.
 */
export async function runUntilTerminated(
  stop: () => Promise<void>,
  logger: Logger,
  shutdown = createShutdownSignal(logger)
): Promise<void> {
  await waitForAbort(shutdown.signal);
  try {
    await stop();
  } catch (err) {
    logger.error({ err }, 'error while stopping');
  } finally {
    shutdown.dispose();
  }
}
