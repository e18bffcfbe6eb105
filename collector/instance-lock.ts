import { randomUUID } from 'node:crypto';
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { makeDirectory } from '../common/make-directory.js';

/** What a lock file holds: who owns it, so a stale lock from a dead process can be taken over. */
export interface LockOwner {
  pid: number;
  hostname: string;
  token: string;
  acquiredAt: string;
}

/** Thrown by {@link acquireInstanceLock} when another live collector holds one of the locks (architecture.md §5). */
export class InstanceLockedError extends Error {
  override readonly name = 'InstanceLockedError';
  constructor(
    readonly lockPath: string,
    readonly owner: LockOwner | null
  ) {
    super(
      `another collector is already running (lock ${lockPath}, pid ${owner?.pid ?? 'unknown'} on ${owner?.hostname ?? 'unknown host'}); ` +
        'stop it first — two collectors on one WhatsApp session or one outbox are refused'
    );
  }
}

/** A held lock; `release()` removes the lock files it created (idempotent). */
export interface InstanceLock {
  readonly paths: readonly string[];
  release(): void;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' ? (parsed as LockOwner) : null;
  } catch {
    return null;
  }
}

function tryCreate(path: string, owner: LockOwner): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, JSON.stringify(owner));
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Lock files this process holds now, so a lock naming our own pid can be told from a predecessor's. */
const heldPaths = new Set<string>();

function acquireOne(path: string, owner: LockOwner): void {
  if (takeOne(path, owner)) return;
  throw new InstanceLockedError(path, readOwner(path));
}

function takeOne(path: string, owner: LockOwner): boolean {
  if (tryCreate(path, owner)) {
    heldPaths.add(path);
    return true;
  }
  const current = readOwner(path);
  // A lock from another host cannot be checked (shared volume): it is respected. On this host it is stale
  // when its process is dead, or when it names this process but this process does not hold it: a restarted
  // container runs the collector as the same pid (1) under the same hostname.
  const isStale =
    current !== null &&
    current.hostname === owner.hostname &&
    (current.pid === owner.pid ? !heldPaths.has(path) : !isProcessAlive(current.pid));
  if (!isStale) return false;
  unlinkSync(path);
  if (!tryCreate(path, owner)) return false;
  heldPaths.add(path);
  return true;
}

function releaseOne(path: string, token: string): void {
  if (readOwner(path)?.token !== token) return;
  heldPaths.delete(path);
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Takes the collector's instance locks: `<AUTH_DIR>.lock` and `<OUTBOX_PATH>.lock` (exclusive create),
 * so a second collector on the same WhatsApp session or the same outbox is refused. A lock left by a
 * dead process on this host is taken over. Locks are also removed when the process exits normally.
 * Source: architecture.md §5 ("a second collector on the same auth state must be refused").
 *
 * @param options.authDir - the Baileys auth-state directory (need not exist yet); omitted by a replay,
 *   which only writes the outbox.
 * @param options.outboxPath - the SQLite outbox file.
 * @throws InstanceLockedError when a live process holds either lock (nothing is left held).
 */
export function acquireInstanceLock(options: { authDir?: string | undefined; outboxPath: string }): InstanceLock {
  const paths = [...(options.authDir !== undefined ? [options.authDir] : []), options.outboxPath].map(
    (path) => `${resolve(path)}.lock`
  );
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    token: randomUUID(),
    acquiredAt: new Date().toISOString(),
  };
  const held: string[] = [];
  try {
    for (const path of paths) {
      makeDirectory(dirname(path));
      acquireOne(path, owner);
      held.push(path);
    }
  } catch (err) {
    for (const path of held) releaseOne(path, owner.token);
    throw err;
  }
  let isReleased = false;
  const release = (): void => {
    if (isReleased) return;
    isReleased = true;
    process.off('exit', release);
    for (const path of held) releaseOne(path, owner.token);
  };
  process.on('exit', release);
  return { paths, release };
}
