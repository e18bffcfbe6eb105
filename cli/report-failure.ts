import { hostname } from 'node:os';
import pg from 'pg';
import { ConfigError } from '../common/config-schema.js';
import { withEncryptedPayloadHint } from '../common/encrypted-payload-hint.js';
import { ListenAddressError } from '../common/listen-error.js';
import { ShutdownRequestedError } from './run-until-os-signal.js';
import { toTerminalLine } from './terminal-text.js';

/** `message: cause: cause…`, so a wrapped failure still says why (e.g. which database refused). */
function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = err; current != null && parts.length < 5;) {
    if (current instanceof Error) {
      parts.push(current.message || current.name);
      // Its message already says the system error in words; the raw `listen EADDRINUSE …` adds nothing.
      if (current instanceof ListenAddressError) break;
      current = current.cause;
    } else {
      parts.push(typeof current === 'string' ? current : JSON.stringify(current));
      break;
    }
  }
  return (
    withEncryptedPayloadHint(parts.join(': ')) ||
    'a component failed without giving a reason (run with LOG_LEVEL=debug)'
  );
}

/** PostgreSQL's SQLSTATE `undefined_table`: a lake command met a table its migrations create. */
const UNDEFINED_TABLE = '42P01';

/** The `undefined_table` error in `err`'s cause chain, or undefined. */
function undefinedTableError(err: unknown): pg.DatabaseError | undefined {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if (current instanceof pg.DatabaseError && current.code === UNDEFINED_TABLE) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * Writes a failure's words to stderr: as they are, or with `LOG_FORMAT=json` (the image sets it) as one record
 * shaped like pino's (level 60, fatal), so a JSON-lines log shipper reads a failed start like the process's
 * other lines (ADR 0018).
 */
function writeFailure(text: string, logFormat: string | undefined): void {
  if (logFormat !== 'json') {
    process.stderr.write(`${text}\n`);
    return;
  }
  const record = { level: 60, time: Date.now(), pid: process.pid, hostname: hostname(), name: 'wa-lake', msg: text };
  process.stderr.write(`${JSON.stringify(record)}\n`);
}

/**
 * Writes what a failed command says to the operator on stderr and returns its exit code (architecture.md §10):
 * an invalid configuration (1), Ctrl-C during start-up (130), a table the migrations create missing (SQLSTATE
 * 42P01: the lake is not migrated, so the words say to run `wa-lake migrate`, 1), anything else as one sentence with its causes (1),
 * or with the stack when `logLevel` is `debug` or `trace`. Imported only when a command failed (ADR 0017).
 * `logFormat` is `LOG_FORMAT`: `json` writes one JSON record instead of text.
 */
export function reportFailure(err: unknown, logLevel: string | undefined, logFormat?: string): number {
  if (err instanceof ConfigError) {
    writeFailure(`${err.message}\nSee .env.example and docs/configuration.md.`, logFormat);
    return 1;
  }
  if (err instanceof ShutdownRequestedError) {
    writeFailure(`wa-lake: ${err.message} during start-up; everything started was stopped`, logFormat);
    return 130;
  }
  const undefinedTable = undefinedTableError(err);
  if (undefinedTable) {
    writeFailure(
      `wa-lake: the lake at DATABASE_URL is not migrated (${toTerminalLine(undefinedTable.message)}); ` +
        'run `wa-lake migrate` against it first',
      logFormat
    );
    return 1;
  }
  const isVerbose = ['debug', 'trace'].includes(logLevel ?? '');
  const message = isVerbose && err instanceof Error ? (err.stack ?? err.message) : describeError(err);
  // A failure's message can quote a remote party (an ingest or webhook answer): never let it drive the terminal.
  writeFailure(`wa-lake: ${toTerminalLine(message)}`, logFormat);
  return 1;
}
