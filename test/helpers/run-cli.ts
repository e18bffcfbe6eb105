import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../bin/wa-lake.js', import.meta.url));

/** What a user sees of one `wa-lake` run: exit code (null when killed), the signal, stdout and stderr. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `wa-lake <args>` as a user would (`bin/wa-lake.js` in a child process). A run that outlives
 * `timeoutMs` (default 60 000 ms) is killed with SIGKILL and reported with `signal: 'SIGKILL'`, so a
 * command that hangs or ignores SIGTERM fails its test instead of hanging it.
 *
 * @param env - the child's whole environment (PATH is added); nothing else leaks in from the test process.
 * @param cwd - the child's working directory (default: the test process's).
 */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {}
): Promise<CliRun> {
  const env = { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'warn', ...options.env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env, timeout: options.timeoutMs ?? 60_000, killSignal: 'SIGKILL', cwd: options.cwd },
      (error, stdout, stderr) => {
        const failed = error as (Error & { code?: number | string; signal?: NodeJS.Signals | null }) | null;
        resolve({
          code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0,
          signal: failed?.signal ?? null,
          stdout,
          stderr,
        });
      }
    );
  });
}

/**
 * Environment of a collector command (`replay`, `backfill`, `status`) with no Temporal: nothing listens at the
 * address, and each workflow start the outbox relay tries fails at a 500 ms deadline instead of the default 10 s,
 * so a replay ends as soon as it has read its capture. Every event stays pending in the outbox.
 */
export const UNREACHABLE_TEMPORAL_ENV = {
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  OUTBOX_RELAY_START_TIMEOUT_MS: '500',
} as const;
