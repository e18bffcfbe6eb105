import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A PostgreSQL server still running on a data directory, found through its `postmaster.pid`. */
export interface LeftoverPostmaster {
  pid: number;
  /** The port it listens on, when `postmaster.pid` says so. */
  port: number | null;
  dataDir: string;
}

/** Thrown by {@link stopLeftoverPostmaster} when the server is still running after the timeout. */
export class LeftoverPostmasterStopError extends Error {
  override readonly name = 'LeftoverPostmasterStopError';
  constructor(
    readonly leftover: LeftoverPostmaster,
    options?: { cause?: unknown }
  ) {
    super(
      `PostgreSQL (pid ${leftover.pid}) on ${leftover.dataDir} did not stop; stop it with: kill -INT ${leftover.pid}`,
      options
    );
  }
}

/** Command line of `pid`, or null when it is not running (a zombie counts as not running). */
export function readCommandLine(pid: number): string | null {
  const proc = `/proc/${pid}`;
  if (existsSync('/proc/self')) {
    try {
      // A zombie has exited; it only waits for a parent that may never reap it (orphans in containers).
      if (/^\d+ \(.*\) Z/.test(readFileSync(`${proc}/stat`, 'utf8'))) return null;
      return readFileSync(`${proc}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return null;
    }
  }
  try {
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Reads `<dataDir>/postmaster.pid` and returns the server it names when that process is alive and is a
 * PostgreSQL server (a stale file whose pid was reused by something else is ignored).
 */
export function findLeftoverPostmaster(dataDir: string): LeftoverPostmaster | null {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  const commandLine = readCommandLine(pid);
  if (commandLine === null || !commandLine.includes('postgres')) return null;
  const port = Number.parseInt(lines[3] ?? '', 10);
  return { pid, port: Number.isInteger(port) ? port : null, dataDir };
}

/**
 * Stops a leftover server with SIGINT (PostgreSQL's "fast" shutdown: sessions are cut, data is safe)
 * and waits until it has exited.
 *
 * @param timeoutMs - how long to wait for the exit (default 30 000 ms).
 * @throws LeftoverPostmasterStopError when it cannot be signalled or is still running after `timeoutMs`.
 */
export async function stopLeftoverPostmaster(leftover: LeftoverPostmaster, timeoutMs = 30_000): Promise<void> {
  try {
    process.kill(leftover.pid, 'SIGINT');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw new LeftoverPostmasterStopError(leftover, { cause: err });
  }
  const deadline = Date.now() + timeoutMs;
  while (readCommandLine(leftover.pid) !== null) {
    if (Date.now() > deadline) throw new LeftoverPostmasterStopError(leftover);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
