/**
 * Schema and statements of the outbox (DESIGN §5). Created on open with `IF NOT EXISTS`; the
 * partial indexes keep `claimDue`, `oldestPendingCreatedAt` and `pruneStarted` off the body pages
 * (`claimDue` is a range scan of `outbox_pending_due`: O(limit) even when 100 000 rows back off).
 * Statements name their index (`INDEXED BY`): without `ANALYZE` statistics SQLite may pick a worse
 * one, and a missing index then fails loudly instead of silently scanning.
 */
export const OUTBOX_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS outbox (
  event_id TEXT PRIMARY KEY NOT NULL,
  type TEXT NOT NULL,
  chat_jid TEXT,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'started', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  last_error TEXT
);
CREATE INDEX IF NOT EXISTS outbox_pending_due ON outbox (next_attempt_at, created_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS outbox_pending_created ON outbox (created_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS outbox_started_at ON outbox (started_at) WHERE state = 'started';
CREATE INDEX IF NOT EXISTS outbox_dead_created ON outbox (created_at) WHERE state = 'dead';
DROP INDEX IF EXISTS outbox_state;
`;

/** Every column of `outbox`, in `OutboxRow` order. */
export const OUTBOX_COLUMNS =
  'event_id, type, chat_jid, body, state, attempts, next_attempt_at, created_at, started_at, last_error';
const COLUMNS = OUTBOX_COLUMNS;

/** Named statements, prepared once per store. */
export const OUTBOX_SQL = {
  insertDead: `INSERT OR IGNORE INTO outbox (event_id, type, chat_jid, body, state, attempts, next_attempt_at, created_at, last_error)
    VALUES (?, ?, ?, ?, 'dead', 0, ?, ?, ?)`,
  claimDue: `SELECT ${COLUMNS} FROM outbox INDEXED BY outbox_pending_due WHERE state = 'pending' AND next_attempt_at <= ?
    ORDER BY next_attempt_at, created_at LIMIT ?`,
  markStarted: `UPDATE outbox SET state = 'started', started_at = ? WHERE event_id = ? AND state = 'pending'`,
  recordFailure: `UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
    WHERE event_id = ? AND state = 'pending'`,
  countByState: `SELECT
    (SELECT COUNT(*) FROM outbox INDEXED BY outbox_pending_created WHERE state = 'pending') AS pending,
    (SELECT COUNT(*) FROM outbox INDEXED BY outbox_started_at WHERE state = 'started') AS started,
    (SELECT COUNT(*) FROM outbox INDEXED BY outbox_dead_created WHERE state = 'dead') AS dead`,
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
 * `event_id` inside the statement is ignored exactly as in a row-by-row loop (DESIGN §5).
 */
export function insertPendingRowsSql(rows: number): string {
  const values = Array.from({ length: rows }, () => "(?, ?, ?, ?, 'pending', 0, ?, ?)").join(', ');
  return `INSERT OR IGNORE INTO outbox (event_id, type, chat_jid, body, state, attempts, next_attempt_at, created_at)
    VALUES ${values}`;
}
