import pino, { type Logger, type LoggerOptions } from 'pino';
import { serializeError, summarizeHandleFields } from './log-serializers.js';

/** Paths whose values never reach a log line (architecture.md §3: no secrets, no message text). */
const REDACT_PATHS = [
  'secret',
  '*.secret',
  'secrets',
  '*.secrets',
  'headers["x-signature"]',
  'req.headers["x-signature"]',
  'req.headers.authorization',
  'config.webhookSecrets',
  'config.webhookSecret',
];

/**
 * Builds the one root pino logger of a process (house style §6). Pretty output only when stdout is
 * a TTY; JSON lines otherwise. Modules take `logger.child({ component })` from their deps.
 *
 * @param options.level - pino level name (`LOG_LEVEL`).
 * @param options.destination - optional stream (tests capture records through it).
 */
export function createRootLogger(options: {
  level: string;
  destination?: pino.DestinationStream;
  name?: string;
}): Logger {
  const base: LoggerOptions = {
    level: options.level,
    name: options.name ?? 'wa-lake',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Issue #12 item 9: a client, socket or request never reaches a log line, under `err` or any field.
    serializers: { err: serializeError, error: serializeError },
    formatters: { log: summarizeHandleFields },
  };
  if (options.destination) return pino(base, options.destination);
  if (process.stdout.isTTY) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, destination: 1 } } });
  }
  return pino(base);
}

export type { Logger };
