import { renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../common/logger.js';
import { makeDirectory } from '../common/make-directory.js';

/** How often the status file is rewritten; `bin/healthcheck.js worker` allows three intervals. */
export const WORKER_STATUS_INTERVAL_MS = 15_000;

/** Content of `WORKER_STATUS_PATH`, read by `bin/healthcheck.js worker` (ADR 0018). */
export interface WorkerStatus {
  pid: number;
  /** The SDK worker's state; healthy only while `RUNNING`. */
  state: string;
  startedAt: string;
  lastHeartbeatAt: string;
  /** Set by a clean stop; null while running (a crash leaves it null: the pid and the age tell). */
  stoppedAt: string | null;
}

/**
 * Rewrites a small JSON status file (temp file + rename) now and every {@link WORKER_STATUS_INTERVAL_MS} with
 * the worker's state, so a container healthcheck reads a file instead of starting the CLI. A write failure
 * is logged at `warn`, never thrown. Source: architecture.md §10.
 *
 * @returns `stop()`, which writes the last status with `stoppedAt`.
 */
export function startWorkerStatusFile(options: { path: string; getState: () => string; logger: Logger }): {
  stop(): void;
} {
  const startedAt = new Date().toISOString();
  const write = (stoppedAt: string | null): void => {
    const status: WorkerStatus = {
      pid: process.pid,
      state: options.getState(),
      startedAt,
      lastHeartbeatAt: new Date().toISOString(),
      stoppedAt,
    };
    try {
      makeDirectory(dirname(options.path));
      const temporary = `${options.path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(status)}\n`);
      renameSync(temporary, options.path);
    } catch (err) {
      options.logger.warn({ err, statusPath: options.path }, 'cannot write worker status file');
    }
  };
  write(null);
  const timer = setInterval(() => write(null), WORKER_STATUS_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      write(new Date().toISOString());
    },
  };
}
