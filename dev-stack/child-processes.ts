import type { ChildProcess } from 'node:child_process';

// Server children (Temporal dev server, embedded PostgreSQL) are not killed with their parent: a forced
// exit (second Ctrl-C, process.exit on an error path) would leave them holding ports and data files.
const tracked = new Map<ChildProcess, NodeJS.Signals>();
let isExitHookInstalled = false;

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * Remembers a spawned server child so {@link killTrackedChildProcesses} can stop it when this process
 * exits without its ordered shutdown. It is forgotten as soon as it exits.
 *
 * @param forcedExitSignal - what to send on a forced exit (e.g. SIGINT = PostgreSQL fast shutdown,
 *   SIGKILL for a server whose state survives a crash).
 */
export function trackChildProcess(child: ChildProcess, forcedExitSignal: NodeJS.Signals): void {
  if (!isRunning(child)) return;
  tracked.set(child, forcedExitSignal);
  child.once('exit', () => tracked.delete(child));
  if (!isExitHookInstalled) {
    isExitHookInstalled = true;
    // 'exit' listeners run synchronously on process.exit(); kill() is synchronous, so this still works.
    process.on('exit', killTrackedChildProcesses);
  }
}

/**
 * Sends each tracked, still-running child its forced-exit signal. Synchronous and idempotent; errors
 * (child already gone) are ignored because this runs while the process is exiting.
 */
export function killTrackedChildProcesses(): void {
  for (const [child, signal] of tracked) {
    try {
      if (isRunning(child)) child.kill(signal);
    } catch {
      // already gone
    }
  }
  tracked.clear();
}
