import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The umask every wa-lake process runs under (ADR 0014 decision 6): files it or its children (the Temporal dev
 * server, Baileys, SQLite) create are owner-only whatever the shell's umask.
 */
export const PRIVATE_UMASK = 0o077;

/** A path whose mode was narrowed, for the warning the caller logs (modes as numbers, e.g. 0o644 → 0o600). */
export interface TightenedPath {
  path: string;
  fromMode: number;
  toMode: number;
}

/**
 * Thrown when a private file or folder is readable by other users and its mode cannot be narrowed (not its
 * owner, read-only file system). The message names the path, its mode and the command that fixes it.
 */
export class PrivateModeError extends Error {
  override readonly name = 'PrivateModeError';
  constructor(
    readonly path: string,
    readonly mode: number,
    cause: unknown
  ) {
    super(
      `${path} is readable by other users (mode ${formatMode(mode)}) and wa-lake cannot narrow it ` +
        `(${(cause as NodeJS.ErrnoException).code ?? 'error'}); run: chmod go-rwx ${path}`,
      { cause }
    );
  }
}

/** `0o640` as `0640`, as `ls` and chmod write it. */
export function formatMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/**
 * The mode a private folder gets: 0700, or 0711 for root, whose embedded PostgreSQL runs as the `postgres` user
 * and must pass through the folder to its own (others can enter but list nothing, and every file is 0600).
 */
export function privateDirectoryMode(): number {
  return process.getuid?.() === 0 ? 0o711 : 0o700;
}

/**
 * Narrows one path's mode to owner-only (files lose every group and other bit; folders keep only the search bits
 * `allowedOtherBits` allows). Symbolic links are left alone (chmod would follow them).
 * @returns what changed, or null when the mode was already private or the path does not exist.
 * @throws PrivateModeError when the mode is too wide and chmod fails.
 */
export function tightenPath(path: string, allowedOtherBits = 0): TightenedPath | null {
  if (!existsSync(path)) return null;
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return null;
  const fromMode = stat.mode & 0o777;
  const toMode = fromMode & ~(0o077 & ~allowedOtherBits);
  if (toMode === fromMode) return null;
  try {
    chmodSync(path, toMode);
  } catch (err) {
    throw new PrivateModeError(path, fromMode, err);
  }
  return { path, fromMode, toMode };
}

/**
 * Narrows a private folder and everything under it (ADR 0014 decision 6): sub-folders to 0700 and files to 0600
 * (owner bits kept), the folder itself too except for the other-user bits `rootOtherBits` allows (the data
 * folder's search bit for root's PostgreSQL). `skip` names entries of the top folder managed by their own program
 * (PostgreSQL's cluster checks its own modes).
 * @returns every path narrowed, for one warning each.
 * @throws PrivateModeError for the first path that cannot be narrowed.
 */
export function tightenPrivateTree(
  root: string,
  options: { skip?: readonly string[]; rootOtherBits?: number } = {}
): TightenedPath[] {
  const changed: TightenedPath[] = [];
  const rootChange = tightenPath(root, options.rootOtherBits ?? 0);
  if (rootChange) changed.push(rootChange);
  if (!existsSync(root) || !lstatSync(root).isDirectory()) return changed;
  const skip = new Set(options.skip ?? []);
  const pending = readdirSync(root)
    .filter((name) => !skip.has(name))
    .map((name) => join(root, name));
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const change = tightenPath(path);
    if (change) changed.push(change);
    const stat = lstatSync(path);
    if (stat.isDirectory()) pending.push(...readdirSync(path).map((name) => join(path, name)));
  }
  return changed;
}

/**
 * Narrows the files of one SQLite database: the file and its `-wal`, `-shm` and `-journal` companions.
 * @returns every path narrowed. @throws PrivateModeError.
 */
export function tightenSqliteFiles(path: string): TightenedPath[] {
  return ['', '-wal', '-shm', '-journal'].flatMap((suffix) => tightenPath(`${path}${suffix}`) ?? []);
}
