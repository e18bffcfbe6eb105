import { closeSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirectory } from '../common/make-directory.js';

/** Who holds a lock, as its holder wrote it: for the refusal message only, never to decide anything. */
export interface LockOwner {
  pid: number;
  hostname: string;
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

/** A held lock; `release()` lets it go (idempotent). The lock files stay: their existence means nothing. */
export interface InstanceLock {
  readonly paths: readonly string[];
  release(): void;
}

/** The lock file inside the auth folder: it travels with the session (a volume), not with a container. */
export const AUTH_LOCK_FILE = 'instance.lock';
/** Appended to the outbox path for its lock file. */
export const OUTBOX_LOCK_SUFFIX = '.instance.lock';
/** Readers of the owner row hold SQLite's shared lock for microseconds; a commit waits them out. */
const COMMIT_BUSY_TIMEOUT_MS = 2_000;

function isBusy(err: unknown): boolean {
  return err instanceof Database.SqliteError && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');
}

/** SQLite's write lock (RESERVED) without waiting: false when another connection holds it. */
function tryBegin(db: Database.Database): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  }
}

function readOwner(db: Database.Database): LockOwner | null {
  try {
    const row = db.prepare('SELECT pid, hostname, acquired_at FROM lock_owner WHERE id = 1').get() as
      { pid: number; hostname: string; acquired_at: string } | undefined;
    return row ? { pid: row.pid, hostname: row.hostname, acquiredAt: row.acquired_at } : null;
  } catch {
    // No table yet (a holder that has not written its name) or the holder is committing it.
    return null;
  }
}

/**
 * The lock is SQLite's write lock on the file, an fcntl lock the kernel holds for this process: the kernel
 * drops it when the process ends however it ends (SIGKILL, OOM, a container stopped or removed), so a lock is
 * never stale, whatever pid or hostname its owner row names (a new container has a new hostname and is
 * pid 1 again). Connections of one process exclude each other too: SQLite tracks its locks per file.
 */
function takeOne(path: string, owner: LockOwner): Database.Database {
  // Created here first: private to its owner, and a folder that cannot hold it fails with the system's
  // error (EACCES, EROFS, ENOSPC) naming the path, not SQLite's "unable to open database file".
  closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 0');
    if (!tryBegin(db)) throw new InstanceLockedError(path, readOwner(db));
    db.exec(
      'CREATE TABLE IF NOT EXISTS lock_owner (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, ' +
        'hostname TEXT NOT NULL, acquired_at TEXT NOT NULL)'
    );
    db.prepare('INSERT OR REPLACE INTO lock_owner (id, pid, hostname, acquired_at) VALUES (1, ?, ?, ?)').run(
      owner.pid,
      owner.hostname,
      owner.acquiredAt
    );
    // Committing the owner row lets the lock go for a moment: whoever takes it first in that moment wins,
    // and this process then refuses as any later one would.
    db.pragma(`busy_timeout = ${COMMIT_BUSY_TIMEOUT_MS}`);
    db.exec('COMMIT');
    db.pragma('busy_timeout = 0');
    if (!tryBegin(db)) throw new InstanceLockedError(path, readOwner(db));
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function releaseOne(db: Database.Database): void {
  try {
    if (db.inTransaction) db.exec('ROLLBACK');
  } finally {
    db.close();
  }
}

/**
 * Takes the collector's instance locks: `<AUTH_DIR>/instance.lock` and `<OUTBOX_PATH>.instance.lock`, so a
 * second collector on the same WhatsApp session or the same outbox is refused, also from another container
 * that mounts the same volume. A lock goes with the process that holds it; nothing is ever taken over.
 * Source: architecture.md §5 ("a second collector on the same auth state must be refused"), ADR 0018.
 *
 * @param options.authDir - the Baileys auth-state directory (created when missing); omitted by a replay,
 *   which only writes the outbox.
 * @param options.outboxPath - the SQLite outbox file.
 * @throws InstanceLockedError when another connection, in this process or another, holds either lock
 *   (nothing is left held).
 * @throws the system error (EACCES, EROFS, ENOSPC…) or DirectoryNotCreatedError when a lock file cannot be
 *   made; the SqliteError of `better-sqlite3` when SQLite cannot use it.
 */
export function acquireInstanceLock(options: { authDir?: string | undefined; outboxPath: string }): InstanceLock {
  const paths = [
    ...(options.authDir !== undefined ? [join(resolve(options.authDir), AUTH_LOCK_FILE)] : []),
    `${resolve(options.outboxPath)}${OUTBOX_LOCK_SUFFIX}`,
  ];
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), acquiredAt: new Date().toISOString() };
  const held: Database.Database[] = [];
  try {
    for (const path of paths) {
      makeDirectory(dirname(path));
      held.push(takeOne(path, owner));
    }
  } catch (err) {
    for (const db of held) releaseOne(db);
    throw err;
  }
  let isReleased = false;
  return {
    paths,
    release: () => {
      if (isReleased) return;
      isReleased = true;
      for (const db of held) releaseOne(db);
    },
  };
}
