import { existsSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../../common/logger.js';
import { packageRoot } from '../../common/package-root.js';
import { prepareDataDir } from './data-dir.js';
import { DemoDataDirRefusedError } from './errors.js';
import { lockDataDir, stopOrphanPostgres, stopOrphanTemporal } from './preflight.js';

/**
 * The file that marks a folder as made by `wa-lake demo` or `demo-send` (architecture.md §10, ADR 0017):
 * only a folder holding it is ever wiped.
 */
export const DEMO_MARKER_FILE = '.wa-lake-demo-folder';

const MARKER_TEXT =
  'This folder was made by wa-lake demo / demo-send. Their next run on it deletes everything in it.\n' +
  'Remove this file to keep the folder: the demo then refuses to use it.\n';

/** The folders whose wiping would destroy something a demo never made, whatever they hold. */
export interface ProtectedFolders {
  workingDir: string;
  homeDir: string;
  /** The wa-lake checkout (or installed package) the CLI runs from. */
  checkoutDir: string;
}

/** The protected folders of this process: `.`, `~` and the checkout of the running CLI. */
export function currentProtectedFolders(): ProtectedFolders {
  return { workingDir: process.cwd(), homeDir: homedir(), checkoutDir: packageRoot() };
}

/** True when `ancestor` is `path` itself or a folder above it. */
function isSameOrAbove(ancestor: string, path: string): boolean {
  const rel = relative(ancestor, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The absolute path with symbolic links resolved where it exists (a link to `~` is `~`). */
function realPath(path: string): string {
  return existsSync(path) ? realpathSync(path) : resolve(path);
}

/** Why `absolute` may never be wiped, or null. */
function describeProtected(absolute: string, folders: ProtectedFolders): string | null {
  if (dirname(absolute) === absolute) return 'it is the filesystem root';
  const named: Array<[string, string]> = [
    [folders.workingDir, 'the working directory'],
    [folders.homeDir, 'your home folder'],
    [folders.checkoutDir, 'the wa-lake checkout'],
  ];
  for (const [folder, name] of named) {
    const target = realPath(folder);
    if (target === absolute) return `it is ${name}`;
    if (isSameOrAbove(absolute, target)) return `it holds ${name} (${target})`;
  }
  return null;
}

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
  const protectedReason = describeProtected(absolute, folders);
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
