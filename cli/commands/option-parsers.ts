import { InvalidArgumentError } from 'commander';

/** One day in ms: the longest wait a CLI option accepts (`--timeout-ms`, `--wait-ms`). */
export const DAY_MS = 86_400_000;

/** Plain decimal digits, nothing else: no sign, blank, point, exponent or `0x`/`0o`/`0b` prefix. */
const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * A commander option parser for a whole number in `[min, max]` written as plain decimal digits: anything else
 * (`abc`, `0x10`, `" 5"`, `5.0`, `1e3`, `-0`) is rejected before the command runs, with commander's own
 * "option '--limit <n>' argument 'abc' is invalid" message and exit code 1.
 *
 * @throws InvalidArgumentError (commander prints it and exits 1).
 */
export function integerInRange(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!DECIMAL_DIGITS.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`must be an integer ${range}.`);
    }
    return parsed;
  };
}

/**
 * A TCP port the local stack binds and prints (1–65535). 0 ("any free port") is refused: the Temporal
 * dev server, its Web UI and PostgreSQL need the number itself, so `--temporal-port 0` fails here rather
 * than later as "missing frontend port".
 */
export const tcpPort = integerInRange(1, 65_535);

/**
 * Wraps a parser that throws plain errors (e.g. `parseRetentionPeriodMs`) as a commander option parser,
 * so its message is reported as an invalid option argument.
 *
 * @throws InvalidArgumentError carrying the parser's message.
 */
export function asOptionParser<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (err) {
      throw new InvalidArgumentError(`${err instanceof Error ? err.message : String(err)}.`);
    }
  };
}

/**
 * A file or folder an output option writes to (`--html`, `--csv`, `--parquet`, `--out`, `--record`, `--data-dir`): an empty or
 * blank path is refused, never taken as "no option" (the report printed JSON) or as the working directory.
 *
 * @throws InvalidArgumentError (commander prints it and exits 1).
 */
export function outputPath(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected a path, not an empty string.');
  return value;
}
