import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from '../../common/logger.js';
import { prepareDataDir } from './data-dir.js';
import { DemoDataDirRefusedError } from './errors.js';
import { lockDataDir, stopOrphanPostgres, stopOrphanTemporal } from './preflight.js';
import {
  currentProtectedFolders,
  describeProtectedFolder,
  realPath,
  type ProtectedFolders,
} from './protected-folders.js';

/**
 * The file that marks a folder as made by `wa-lake demo` or `demo-send` (architecture.md §10, ADR 0017):
 * only a folder holding it is ever wiped.
 */
export const DEMO_MARKER_FILE = '.wa-lake-demo-folder';

const MARKER_TEXT =
  'This folder was made by wa-lake demo / demo-send. Their next run on it deletes everything in it.\n' +
  'Remove this file to keep the folder: the demo then refuses to use it.\n';

/**
 * Makes `dataDir` ready for a demo run and returns its absolute path (architecture.md §10, ADR 0017): a
 * missing or empty folder is created and marked ({@link DEMO_MARKER_FILE}); a marked folder is emptied (a
 * PostgreSQL or Temporal server a killed demo left on it is stopped first) and stays marked. Everything else is refused
 * before anything is deleted.
 *
 * @throws DemoDataDirRefusedError for `/`, the working directory, the home folder, the checkout or a folder
 *   above one of them; a path that is no folder; a non-empty folder without the marker.
 * @throws DataDirInUseError when a live stack holds the folder's lock (a running `wa-lake dev` or demo).
 * @throws DataDirUnusableError when the folder cannot be created.
 */
export async function claimDemoDataDir(
  dataDir: string,
  logger: Logger,
  folders: ProtectedFolders = currentProtectedFolders()
): Promise<string> {
  const absolute = realPath(dataDir);
  const protectedReason = describeProtectedFolder(absolute, folders);
  if (protectedReason !== null) throw new DemoDataDirRefusedError(dataDir, protectedReason);
  if (existsSync(absolute) && !statSync(absolute).isDirectory()) {
    throw new DemoDataDirRefusedError(dataDir, 'it is not a folder');
  }
  const existing = existsSync(absolute) ? readdirSync(absolute) : [];
  // A refused folder is left as it was found, modes included: the refusal comes before the folder is prepared.
  if (existing.length > 0 && !existing.includes(DEMO_MARKER_FILE)) refuseForeignFolder(dataDir, absolute, existing);
  const layout = prepareDataDir(absolute);
  const lock = lockDataDir(layout.root);
  try {
    const entries = readdirSync(absolute).filter((entry) => !lock.paths.includes(join(absolute, entry)));
    await stopOrphanPostgres(layout.postgresDir, logger);
    await stopOrphanTemporal(layout, logger);
    for (const entry of entries) rmSync(join(absolute, entry), { recursive: true, force: true });
    writeFileSync(join(absolute, DEMO_MARKER_FILE), MARKER_TEXT);
  } finally {
    lock.release();
  }
  return absolute;
}

/**
 * Refuses a non-empty folder no demo made: one a live stack holds is named as in use (its lock says so), any other
 * as not the demo's. The lock file this check makes is removed again.
 *
 * @throws DataDirInUseError, DemoDataDirRefusedError — always one of them.
 */
function refuseForeignFolder(dataDir: string, absolute: string, existing: readonly string[]): never {
  const lock = lockDataDir(absolute);
  lock.release();
  for (const path of lock.paths) if (!existing.includes(basename(path))) rmSync(path, { force: true });
  throw new DemoDataDirRefusedError(
    dataDir,
    `it is not empty and no demo made it (no ${DEMO_MARKER_FILE} inside); pass a new or empty folder`
  );
}

/**
 * Removes the demo marker from a folder `wa-lake dev` takes as its data folder, so no later demo wipes what dev
 * stores there (ADR 0017). Returns true when there was one.
 */
export function unmarkDemoDataDir(root: string): boolean {
  const marker = join(root, DEMO_MARKER_FILE);
  if (!existsSync(marker)) return false;
  rmSync(marker, { force: true });
  return true;
}
