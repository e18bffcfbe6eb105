import type Database from 'better-sqlite3';
import { openCollectorDatabase } from '../open-collector-database.js';

/**
 * WhatsApp id → `message_id` of every message this collector dispatched (architecture.md §12),
 * in its own SQLite file next to the outbox, so ACKs seen after a restart still reach their workflow.
 * Written synchronously before the socket sends, so even an immediate ACK finds its entry.
 */
export class SentMessageIndex {
  private readonly insertStatement: Database.Statement<[string, string, number]>;
  private readonly lookupStatement: Database.Statement<[string], { message_id: string }>;

  private constructor(private readonly db: Database.Database) {
    this.insertStatement = db.prepare(
      'INSERT OR IGNORE INTO sent_messages (wa_message_id, message_id, created_at) VALUES (?, ?, ?)'
    );
    this.lookupStatement = db.prepare('SELECT message_id FROM sent_messages WHERE wa_message_id = ?');
  }

  /** Opens (creating when missing) the index at `path`; `:memory:` for tests. */
  static open(path: string): SentMessageIndex {
    const db = openCollectorDatabase(path);
    db.exec(`CREATE TABLE IF NOT EXISTS sent_messages (
      wa_message_id TEXT PRIMARY KEY,
      message_id    TEXT NOT NULL,
      created_at    INTEGER NOT NULL
    )`);
    return new SentMessageIndex(db);
  }

  /** Records a dispatch (idempotent: a retry keeps the first entry). */
  remember(waMessageId: string, messageId: string, nowMs = Date.now()): void {
    this.insertStatement.run(waMessageId, messageId, nowMs);
  }

  /** The `message_id` sent with this WhatsApp id, or null when this account never sent it through wa-lake. */
  lookup(waMessageId: string): string | null {
    return this.lookupStatement.get(waMessageId)?.message_id ?? null;
  }

  /** Deletes entries older than `beforeMs` (epoch ms). @returns rows deleted. */
  prune(beforeMs: number): number {
    return this.db.prepare('DELETE FROM sent_messages WHERE created_at < ?').run(beforeMs).changes;
  }

  close(): void {
    this.db.close();
  }
}
