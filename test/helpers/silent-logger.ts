import { createRootLogger, type Logger } from '../../common/logger.js';

/** A silent logger for tests that do not assert on log records. */
export function silentLogger(): Logger {
  return createRootLogger({ level: 'silent', destination: { write: () => undefined } });
}
