import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readCommandLine } from './leftover-postmaster.js';

/** A `temporal server start-dev` process still running on a data folder's state file. */
export interface LeftoverTemporalServer {
  pid: number;
  dbFile: string;
}

/** Thrown by {@link stopLeftoverTemporalServer} when the server is still running after SIGKILL. */
export class LeftoverTemporalServerStopError extends Error {
  override readonly name = 'LeftoverTemporalServerStopError';
  constructor(readonly leftover: LeftoverTemporalServer) {
    super(
      `the Temporal dev server (pid ${leftover.pid}) on ${leftover.dbFile} did not stop; stop it with: kill -9 ${leftover.pid}`
    );
  }
}

/**
 * Records the pid of a dev server started on `dbFile`, so the next start on the same data folder finds it if this
 * process is killed (kill -9 does not reach the children; the server keeps the ports and the state file).
 */
export function writeTemporalPidFile(pidFile: string, pid: number): void {
  writeFileSync(pidFile, `${pid}\n`);
}

/**
 * Forgets the pid written by {@link writeTemporalPidFile} once that server stopped; a file that names another pid
 * by then (the next server on the folder) is left alone.
 */
export function removeTemporalPidFile(pidFile: string, pid: number): void {
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return;
  }
  if (Number.parseInt(text.trim(), 10) === pid) rmSync(pidFile, { force: true });
}

/**
 * Reads `pidFile` and returns the server it names when that process is alive and is a `temporal server start-dev`
 * on `dbFile` (a stale file whose pid was reused by something else is ignored). Call only while holding the data
 * folder's lock: the lock proves no live stack owns that server.
 */
export function findLeftoverTemporalServer(pidFile: string, dbFile: string): LeftoverTemporalServer | null {
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  const commandLine = readCommandLine(pid);
  if (commandLine === null || !commandLine.includes('start-dev') || !commandLine.includes(dbFile)) return null;
  return { pid, dbFile };
}

/**
 * Stops a leftover dev server: SIGTERM, SIGKILL after `graceMs` (its SQLite state survives a kill, ADR 0008), and
 * waits until it has exited.
 *
 * @throws LeftoverTemporalServerStopError when it is still running `graceMs` after the SIGKILL.
 */
export async function stopLeftoverTemporalServer(leftover: LeftoverTemporalServer, graceMs = 10_000): Promise<void> {
  const signal = (name: NodeJS.Signals): boolean => {
    try {
      process.kill(leftover.pid, name);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
      throw err;
    }
  };
  if (!signal('SIGTERM')) return;
  const waitForExit = async (deadline: number): Promise<boolean> => {
    while (readCommandLine(leftover.pid) !== null) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return true;
  };
  if (await waitForExit(Date.now() + graceMs)) return;
  if (!signal('SIGKILL')) return;
  if (!(await waitForExit(Date.now() + graceMs))) throw new LeftoverTemporalServerStopError(leftover);
}
