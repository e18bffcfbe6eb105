import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { packageRoot } from '../../common/package-root.js';

/** The folders a command must never fill or wipe, whatever they hold (architecture.md §10, ADR 0017). */
export interface ProtectedFolders {
  /** The working directory; null where `.` is a fair choice (`report --csv .`). */
  workingDir: string | null;
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
export function realPath(path: string): string {
  return existsSync(path) ? realpathSync(path) : resolve(path);
}

/**
 * Why `path` may never be a command's own folder (a demo's or dev's data folder, a report's CSV folder), or
 * null: `/`, one of `folders`, or a folder above one of them. `path` is resolved (symbolic links included) first.
 *
 * @returns a clause such as `it is the filesystem root` or `it holds your home folder (/root)`.
 */
export function describeProtectedFolder(path: string, folders: ProtectedFolders): string | null {
  const absolute = realPath(path);
  if (dirname(absolute) === absolute) return 'it is the filesystem root';
  const named: Array<[string | null, string]> = [
    [folders.workingDir, 'the working directory'],
    [folders.homeDir, 'your home folder'],
    [folders.checkoutDir, 'the wa-lake checkout'],
  ];
  for (const [folder, name] of named) {
    if (folder === null) continue;
    const target = realPath(folder);
    if (target === absolute) return `it is ${name}`;
    if (isSameOrAbove(absolute, target)) return `it holds ${name} (${target})`;
  }
  return null;
}
