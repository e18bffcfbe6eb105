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

/** `LOG_FORMAT`: `pretty` (readable lines), `json` (one JSON record per line) or `auto` (pretty on a terminal). */
export type LogFormat = 'auto' | 'pretty' | 'json';

/**
 * Builds the one root pino logger of a process (house style §6). Readable lines (pino-pretty) when stdout is a
 * TTY, JSON lines otherwise; `format` (`LOG_FORMAT`) forces one, e.g. `json` in a container
 * that has a TTY. Modules take `logger.child({ component })` from their deps.
 *
 * @param options.level - pino level name (`LOG_LEVEL`).
 * @param options.destination - optional stream (tests capture records through it).
 */
export function createRootLogger(options: {
  level: string;
  destination?: pino.DestinationStream;
  name?: string;
  format?: LogFormat;
}): Logger {
  const base: LoggerOptions = {
    level: options.level,
    name: options.name ?? 'wa-lake',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // A client, socket or request never reaches a log line, under `err` or any field.
    serializers: { err: serializeError, error: serializeError },
    formatters: { log: summarizeHandleFields },
  };
  if (options.destination) return pino(base, options.destination);
  const format = options.format ?? 'auto';
  if (format === 'pretty' || (format === 'auto' && process.stdout.isTTY)) {
    const pretty = { colorize: process.stdout.isTTY === true, destination: 1, ignore: 'pid,hostname,name' };
    return pino({ ...base, transport: { target: 'pino-pretty', options: pretty } });
  }
  return pino(base);
}

export type { Logger };
