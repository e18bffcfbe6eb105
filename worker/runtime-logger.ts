import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogEntry } from '@temporalio/worker';
import type { Logger } from '../common/logger.js';

let isInstalled = false;

function forward(logger: Logger, entry: LogEntry): void {
  const fields = { ...entry.meta };
  switch (entry.level) {
    case 'TRACE':
      return logger.trace(fields, entry.message);
    case 'DEBUG':
      return logger.debug(fields, entry.message);
    case 'INFO':
      // The bundler reports webpack's whole stats table as one multi-line INFO message: build detail, not an
      // operator's line. It stays visible at LOG_LEVEL=debug.
      if (entry.message.includes('\n')) return logger.debug(fields, entry.message);
      return logger.info(fields, entry.message);
    case 'WARN':
      return logger.warn(fields, entry.message);
    case 'ERROR':
      return logger.error(fields, entry.message);
  }
}

/**
 * Bridges the Temporal `Runtime` logger (SDK, workflow `log`, activity `log`, Core at WARN) to pino, at
 * most once per process: `wa-lake dev` runs the worker next to other components, and `Runtime.install`
 * throws when called twice or after a connection exists. Source: house style §6, architecture.md §7.
 *
 * @returns true when installed now, false when already installed (or the Runtime already exists).
 */
export function installRuntimeLoggerOnce(logger: Logger): boolean {
  if (isInstalled) return false;
  const temporalLogger = logger.child({ component: 'temporal' });
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', (entry) => forward(temporalLogger, entry)),
      telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) } },
    });
    isInstalled = true;
    return true;
  } catch (err) {
    isInstalled = true;
    temporalLogger.warn({ err }, 'temporal runtime already exists; its logger was not replaced');
    return false;
  }
}
