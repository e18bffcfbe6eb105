import { existsSync } from 'node:fs';
import type { Logger } from '../../common/logger.js';
import {
  InstanceLockedError,
  OUTBOX_LOCK_SUFFIX,
  acquireInstanceLock,
  type InstanceLock,
} from '../../collector/index.js';
import { findLeftoverPostmaster, stopLeftoverPostmaster } from '../../dev-stack/leftover-postmaster.js';
import { findLeftoverTemporalServer, stopLeftoverTemporalServer } from '../../dev-stack/leftover-temporal-server.js';
import { isPortFree, PortInUseError, type TakenPort } from '../../dev-stack/tcp-ports.js';
import type { DataDirLayout } from './data-dir.js';
import { DataDirInUseError, DataDirUnusableError } from './errors.js';

/** System errors that mean "this folder cannot hold the stack's files", said as a sentence instead. */
const UNUSABLE_FOLDER_CODES = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT']);

/** The path the data folder's lock file is named after (`<root>/wa-lake-dev.instance.lock`). */
const dataDirLockBase = (root: string): string => `${root}/wa-lake-dev`;

/**
 * Takes the one-stack-per-data-folder lock: a second stack would share the Temporal state file and the
 * PostgreSQL cluster. A process that died (kill -9) holds no lock: the kernel let it go (ADR 0018).
 *
 * @throws DataDirInUseError naming the live owner's pid.
 * @throws DataDirUnusableError when the lock file cannot be written (read-only file system, no permission, full).
 */
export function lockDataDir(root: string): InstanceLock {
  try {
    return acquireInstanceLock({ outboxPath: dataDirLockBase(root) });
  } catch (err) {
    if (err instanceof InstanceLockedError) throw new DataDirInUseError(root, err.owner?.pid ?? null, { cause: err });
    if (UNUSABLE_FOLDER_CODES.has((err as NodeJS.ErrnoException).code ?? '')) {
      throw new DataDirUnusableError(root, { cause: err });
    }
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
    { component: 'embedded-postgres', leftoverPid: leftover.pid, port: leftover.port, dataDir: postgresDir },
    'stopping PostgreSQL left running by an earlier wa-lake dev or demo that did not shut down'
  );
  await stopLeftoverPostmaster(leftover);
}

/**
 * Stops a Temporal dev server that an earlier `wa-lake dev` or demo left running on our data folder when it was
 * killed (ADR 0017): it holds the frontend and Web UI ports and the folder's `temporal.sqlite`. Same rule as
 * {@link stopOrphanPostgres}: only while holding {@link lockDataDir}.
 *
 * @throws LeftoverTemporalServerStopError when it does not stop.
 */
export async function stopOrphanTemporal(
  layout: Pick<DataDirLayout, 'temporalPidFile' | 'temporalDbFile'>,
  logger: Logger
): Promise<void> {
  const leftover = findLeftoverTemporalServer(layout.temporalPidFile, layout.temporalDbFile);
  if (!leftover) return;
  logger.warn(
    { component: 'temporal-dev-server', leftoverPid: leftover.pid, dbFile: leftover.dbFile },
    'stopping the Temporal dev server left running by an earlier wa-lake dev or demo that did not shut down'
  );
  await stopLeftoverTemporalServer(leftover);
}

/**
 * Whether a stack ran on this folder before: it holds the data-folder lock file (an earlier `wa-lake dev` or demo,
 * or one running now), or a PostgreSQL (`hasEmbeddedPostgres`) or Temporal dev server that an earlier run left
 * running (kill -9) is alive. Such a server holds ports the stack asks for, and a running stack is to be named by
 * {@link lockDataDir}, not by its ports: the port check then waits until the lock is held and
 * {@link stopOrphanPostgres} and {@link stopOrphanTemporal} ran. Reads only: creates and locks nothing.
 */
export function hasEarlierStack(
  layout: Pick<DataDirLayout, 'root' | 'postgresDir' | 'temporalPidFile' | 'temporalDbFile'>,
  hasEmbeddedPostgres: boolean
): boolean {
  if (existsSync(`${dataDirLockBase(layout.root)}${OUTBOX_LOCK_SUFFIX}`)) return true;
  if (hasEmbeddedPostgres && findLeftoverPostmaster(layout.postgresDir) !== null) return true;
  return findLeftoverTemporalServer(layout.temporalPidFile, layout.temporalDbFile) !== null;
}

/** A port the stack was asked to listen on, and the option that asked (`null`/`undefined`: a free one is picked). */
export interface RequestedPort {
  port: number | null | undefined;
  purpose: string;
}

/**
 * Checks every port the stack was asked for before any part of it starts (ADR 0017): a taken PostgreSQL port used
 * to be named only after the codec server and Temporal had started. Every port is checked, so one message names
 * all the taken ones: freed one at a time, each would cost a failed start.
 *
 * @throws PortInUseError naming every taken port and its option.
 */
export async function assertPortsFree(ports: readonly RequestedPort[]): Promise<void> {
  const taken: TakenPort[] = [];
  for (const { port, purpose } of ports) if (port && !(await isPortFree(port))) taken.push({ port, purpose });
  const [first, ...rest] = taken;
  if (first !== undefined) throw new PortInUseError([first, ...rest]);
}
