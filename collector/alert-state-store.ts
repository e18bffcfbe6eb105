import type Database from 'better-sqlite3';
import type { AlertWindowClaim, AlertWindowLedger } from '../common/alert-window-ledger.js';
import { OutboxOpenError } from './errors.js';
import { openCollectorDatabase } from './open-collector-database.js';

const ALERT_STATE_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS alert_windows (
  kind TEXT PRIMARY KEY NOT NULL,
  sent_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS collector_marks (
  name TEXT PRIMARY KEY NOT NULL,
  value INTEGER NOT NULL
);
`;

// One statement claims atomically: the row is written only when the kind is new or its window is over,
// so `changes` says whether this claim won, even with two connections on the file.
const CLAIM_SQL = `INSERT INTO alert_windows (kind, sent_at_ms) VALUES (@kind, @nowMs)
  ON CONFLICT (kind) DO UPDATE SET sent_at_ms = excluded.sent_at_ms
  WHERE excluded.sent_at_ms - alert_windows.sent_at_ms >= @windowMs`;

/**
 * The collector's state that must outlive the process, in the outbox file (its own connection, WAL):
 * when each alert kind was last sent (an {@link AlertWindowLedger}: one `temporal_unreachable` per
 * outage however often the collector restarts, even while Temporal itself is down) and small named
 * marks such as the dead-row count already reported. Source:, architecture.md §5.
 */
export class AlertStateStore implements AlertWindowLedger {
  private readonly claimStatement: Database.Statement;

  private constructor(
    private readonly db: Database.Database,
    private readonly now: () => number
  ) {
    this.claimStatement = db.prepare(CLAIM_SQL);
  }

  /**
   * Opens the state tables in the outbox file (created if missing).
   * @param options.path - the outbox file (`OUTBOX_PATH`); its directory must exist.
   * @param options.now - clock in epoch ms (tests).
   * @throws OutboxOpenError when the file cannot be opened or the tables created.
   */
  static open(options: { path: string; now?: () => number }): AlertStateStore {
    let db: Database.Database | undefined;
    try {
      db = openCollectorDatabase(options.path);
      db.exec(ALERT_STATE_SCHEMA_SQL);
      return new AlertStateStore(db, options.now ?? Date.now);
    } catch (err) {
      db?.close();
      throw new OutboxOpenError(options.path, { cause: err });
    }
  }

  /** {@inheritDoc AlertWindowLedger.claim} */
  claim(kind: string, windowMs: number): Promise<AlertWindowClaim> {
    const nowMs = this.now();
    if (this.claimStatement.run({ kind, nowMs, windowMs }).changes === 1) return Promise.resolve({ isClaimed: true });
    const row = this.db.prepare('SELECT sent_at_ms FROM alert_windows WHERE kind = ?').get(kind) as
      { sent_at_ms: number } | undefined;
    return Promise.resolve({ isClaimed: false, heldUntilMs: (row?.sent_at_ms ?? nowMs) + windowMs });
  }

  /** The value of mark `name`, or null when never written. */
  readMark(name: string): number | null {
    const row = this.db.prepare('SELECT value FROM collector_marks WHERE name = ?').get(name) as
      { value: number } | undefined;
    return row?.value ?? null;
  }

  /** Writes mark `name` (durable on return: `synchronous = FULL`). */
  writeMark(name: string, value: number): void {
    this.db
      .prepare(
        'INSERT INTO collector_marks (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'
      )
      .run(name, value);
  }

  /** Closes the connection (idempotent). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
