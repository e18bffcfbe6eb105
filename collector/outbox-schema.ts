import type Database from 'better-sqlite3';

/**
 * Schema and statements of the outbox (architecture.md §5). The partial indexes keep `listDue`,
 * `oldestPendingCreatedAt` and `pruneStarted` off the body pages (`listDue` is a range scan of
 * `outbox_pending_due`: O(limit) even when 100 000 rows back off). Statements name their index
 * (`INDEXED BY`): without `ANALYZE` statistics SQLite may pick a worse one, and a missing index then
 * fails loudly instead of silently scanning.
 *
 * Versioned with `PRAGMA user_version` (see {@link applyOutboxSchema}): a new file gets the latest
 * table at once, an older file is upgraded step by step, so an outbox written by an earlier release
 * keeps its pending rows.
 */
const CREATE_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS outbox (
  event_id TEXT PRIMARY KEY NOT NULL,
  type TEXT NOT NULL,
  chat_jid TEXT,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'started', 'dead')),
  start_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  last_error TEXT
);`;

const INDEXES_SQL = `
CREATE INDEX IF NOT EXISTS outbox_pending_due ON outbox (next_attempt_at, created_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS outbox_pending_created ON outbox (created_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS outbox_started_at ON outbox (started_at) WHERE state = 'started';
CREATE INDEX IF NOT EXISTS outbox_dead_created ON outbox (created_at) WHERE state = 'dead';
DROP INDEX IF EXISTS outbox_state;
`;

/**
 * Upgrades of an existing outbox file, in order; `version` is the `user_version` after the step.
 * Version 0 is every file written before versioning (its table may lack nothing but the renames below).
 */
export const OUTBOX_MIGRATIONS: ReadonlyArray<{ version: number; why: string; sql: string }> = [
  {
    version: 1,
    why: 'The column counts workflow-start attempts, not deliveries',
    sql: 'ALTER TABLE outbox RENAME COLUMN attempts TO start_attempts;',
  },
];

/** `user_version` of a file with the current schema. */
export const OUTBOX_SCHEMA_VERSION = OUTBOX_MIGRATIONS.reduce((latest, step) => Math.max(latest, step.version), 0);

/**
 * Creates the outbox schema on a new file or upgrades an older one, in one `IMMEDIATE` transaction
 * (a crash mid-upgrade leaves the old schema intact).
 * @throws Error when the file was written by a newer release (`user_version` above
 *   {@link OUTBOX_SCHEMA_VERSION}); SQLite errors as thrown by better-sqlite3. `OutboxStore.open` wraps
 *   both in `OutboxOpenError`.
 */
export function applyOutboxSchema(db: Database.Database): void {
  db.transaction(() => {
    const version = Number(db.pragma('user_version', { simple: true }));
    if (version > OUTBOX_SCHEMA_VERSION) {
      throw new Error(`outbox schema version ${version} is newer than this release's ${OUTBOX_SCHEMA_VERSION}`);
    }
    const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox'`).get();
    if (hasTable === undefined) db.exec(CREATE_TABLE_SQL);
    else for (const step of OUTBOX_MIGRATIONS) if (step.version > version) db.exec(step.sql);
    db.exec(INDEXES_SQL);
    db.pragma(`user_version = ${OUTBOX_SCHEMA_VERSION}`);
  }).immediate();
}

/** Every column of `outbox`, in `OutboxRow` order. */
export const OUTBOX_COLUMNS =
  'event_id, type, chat_jid, body, state, start_attempts, next_attempt_at, created_at, started_at, last_error';
const COLUMNS = OUTBOX_COLUMNS;

/** Named statements, prepared once per store. */
export const OUTBOX_SQL = {
  insertDead: `INSERT OR IGNORE INTO outbox (event_id, type, chat_jid, body, state, start_attempts, next_attempt_at, created_at, last_error)
    VALUES (?, ?, ?, ?, 'dead', 0, ?, ?, ?)`,
  selectDue: `SELECT ${COLUMNS} FROM outbox INDEXED BY outbox_pending_due WHERE state = 'pending' AND next_attempt_at <= ?
    ORDER BY next_attempt_at, created_at LIMIT ?`,
  markStarted: `UPDATE outbox SET state = 'started', started_at = ? WHERE event_id = ? AND state = 'pending'`,
  recordStartFailure: `UPDATE outbox SET start_attempts = start_attempts + 1, last_error = ?, next_attempt_at = ?
    WHERE event_id = ? AND state = 'pending'`,
  postponeUntried: `UPDATE outbox SET next_attempt_at = ? WHERE event_id = ? AND state = 'pending'`,
  countByState: `SELECT
    (SELECT COUNT(*) FROM outbox INDEXED BY outbox_pending_created WHERE state = 'pending') AS pending,
    (SELECT COUNT(*) FROM outbox INDEXED BY outbox_started_at WHERE state = 'started') AS started,
    (SELECT COUNT(*) FROM outbox INDEXED BY outbox_dead_created WHERE state = 'dead') AS dead`,
  countPendingHistory: `SELECT COUNT(*) AS pending FROM outbox INDEXED BY outbox_pending_created
    WHERE state = 'pending' AND json_valid(body) AND json_extract(body, '$.source') IN ('history', 'on_demand')`,
  oldestPending: `SELECT MIN(created_at) AS created_at FROM outbox INDEXED BY outbox_pending_created WHERE state = 'pending'`,
  pruneStarted: `DELETE FROM outbox INDEXED BY outbox_started_at WHERE state = 'started' AND started_at < ?`,
  get: `SELECT ${COLUMNS} FROM outbox WHERE event_id = ?`,
  listDead: `SELECT ${COLUMNS} FROM outbox INDEXED BY outbox_dead_created WHERE state = 'dead' ORDER BY created_at LIMIT ?`,
} as const;

/** Most rows one multi-row `insertPendingRows` statement takes (6 parameters each, far under SQLite's limit). */
export const INSERT_ROWS_PER_STATEMENT = 100;

/**
 * `INSERT OR IGNORE` of `rows` pending rows (parameters per row: event_id, type, chat_jid, body,
 * next_attempt_at, created_at) in one statement: one VM run per chunk instead of per row (the per-row
 * statement overhead was a sizeable part of enqueue CPU). Rows are inserted in order, so a repeated
 * `event_id` inside the statement is ignored exactly as in a row-by-row loop (architecture.md §5).
 */
export function insertPendingRowsSql(rows: number): string {
  const values = Array.from({ length: rows }, () => "(?, ?, ?, ?, 'pending', 0, ?, ?)").join(', ');
  return `INSERT OR IGNORE INTO outbox (event_id, type, chat_jid, body, state, start_attempts, next_attempt_at, created_at)
    VALUES ${values}`;
}
