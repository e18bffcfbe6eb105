import type { Logger } from 'pino';
import { InstanceLockedError, acquireInstanceLock, type InstanceLock } from '../../collector/index.js';
import { findLeftoverPostmaster, stopLeftoverPostmaster } from '../../dev-stack/leftover-postmaster.js';
import { DataDirInUseError } from './errors.js';

/**
 * Takes the one-stack-per-data-folder lock: a second stack would share the Temporal state file and the
 * PostgreSQL cluster. A lock left by a dead process (kill -9) is taken over.
 *
 * @throws DataDirInUseError naming the live owner's pid.
 */
export function lockDataDir(root: string): InstanceLock {
  try {
    return acquireInstanceLock({ outboxPath: `${root}/wa-lake-dev` });
  } catch (err) {
    if (err instanceof InstanceLockedError) throw new DataDirInUseError(root, err.owner?.pid ?? null, { cause: err });
    throw err;
  }
}

/**
 * Stops a PostgreSQL server that an earlier `wa-lake dev` left running on our data folder when it was
 * killed (kill -9 does not reach its children). Call only while holding {@link lockDataDir}: the lock
 * proves that no live stack owns that server.
 *
 * @throws LeftoverPostmasterStopError when it does not stop (the message names the pid and the command).
 */
export async function stopOrphanPostgres(postgresDir: string, logger: Logger): Promise<void> {
  const leftover = findLeftoverPostmaster(postgresDir);
  if (!leftover) return;
  logger.warn(
    { component: 'embedded-postgres', pid: leftover.pid, port: leftover.port, dataDir: postgresDir },
    'stopping PostgreSQL left running by an earlier wa-lake dev that did not shut down'
  );
  await stopLeftoverPostmaster(leftover);
}
