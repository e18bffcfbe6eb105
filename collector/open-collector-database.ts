import Database from 'better-sqlite3';

/**
 * Opens a collector SQLite file (the outbox, and the sent-message index beside it) with the pragmas every
 * connection to it needs (architecture.md §5): WAL, so the collector's writer and the readers (`wa-lake status`,
 * erasure) never block each other; `synchronous = FULL`, so a row Baileys' callback saw committed survives a power
 * cut; a 5 s `busy_timeout` for the moments two connections write; `secure_delete`, so the bytes of a deleted or
 * rewritten row (an erased member's LID and phone number, ADR 0010) are overwritten with zeros instead of staying
 * in free pages and free space of the file. The one place these files are opened.
 *
 * @throws the SqliteError of `better-sqlite3` when the file cannot be opened.
 */
export function openCollectorDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.pragma('secure_delete = ON');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
