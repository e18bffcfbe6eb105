import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Thrown by {@link makeDirectory} when a directory cannot be created. The message names the path; the
 * `cause` (the system error) or `reason` says why.
 */
export class DirectoryNotCreatedError extends Error {
  override readonly name = 'DirectoryNotCreatedError';
  constructor(
    readonly path: string,
    options: { cause: unknown } | { reason: string }
  ) {
    super(
      `cannot create the directory ${path}${'reason' in options ? `: ${options.reason}` : ''}`,
      'cause' in options ? { cause: options.cause } : undefined
    );
  }
}

/**
 * `mkdir -p` that always returns or throws. Node's `mkdirSync(path, { recursive: true })` (20 and 22)
 * spins forever at 100 % CPU when an existing parent answers ENOENT for a child it can never hold
 * (`/proc/nope`, a stale mount): it reads ENOENT as "parent missing", re-creates the parent (EEXIST)
 * and retries. Being synchronous, it also blocks the SIGTERM handler. Here the missing parts are
 * created one at a time from the nearest existing ancestor, so ENOENT is final. Seen with
 * `wa-lake dev --data-dir /proc/nope`.
 *
 * @param path - directory to create (relative paths resolve from the working directory).
 * @returns the absolute path.
 * @throws DirectoryNotCreatedError when an ancestor is not a directory or a `mkdir` fails (EACCES,
 *   ENOENT, EROFS, …), with the system error as `cause`.
 */
export function makeDirectory(path: string): string {
  const absolute = resolve(path);
  const missing: string[] = [];
  let existing = absolute;
  while (!existsSync(existing)) {
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (existsSync(existing) && !statSync(existing).isDirectory()) {
    throw new DirectoryNotCreatedError(absolute, { reason: `${existing} exists and is not a directory` });
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory);
    } catch (err) {
      // Created meanwhile by someone else: fine when it is a directory.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && statSync(directory).isDirectory()) continue;
      throw new DirectoryNotCreatedError(absolute, { cause: err });
    }
  }
  return absolute;
}
