import type Database from 'better-sqlite3';
import { OutboxOpenError } from './errors.js';
import { openCollectorDatabase } from './open-collector-database.js';
import {
  applyOutboxSchema,
  INSERT_ROWS_PER_STATEMENT,
  insertPendingRowsSql,
  OUTBOX_COLUMNS,
  OUTBOX_SQL,
} from './outbox-schema.js';

/** Row state (architecture.md §5): `pending` → `started` → pruned; `dead` waits for an operator. */
export type OutboxState = 'pending' | 'started' | 'dead';

/** One outbox row. Times are ms since the Unix epoch. */
export interface OutboxRow {
  eventId: string;
  type: string;
  chatJid: string | null;
  /** The exact JSON text (an `IngestBody`) that will be signed and POSTed. */
  body: string;
  state: OutboxState;
  /** Failed `workflow.start` calls for this row (not delivery attempts: those live in Temporal). */
  startAttempts: number;
  nextAttemptAt: number;
  createdAt: number;
  startedAt: number | null;
  lastError: string | null;
}

/** What the pipeline enqueues for one item. */
export interface OutboxEventInput {
  eventId: string;
  type: string;
  chatJid: string | null;
  body: string;
}

/** An item the collector cannot hand over, with the reason kept in `last_error`. */
export type OutboxDeadInput = OutboxEventInput & { reason: string };

/** Counts of one enqueue: `ignored` rows already existed (same `event_id`). */
export interface EnqueueResult {
  /** Rows inserted (pending and dead). */
  inserted: number;
  ignored: number;
  /** Of `inserted`, rows inserted as `dead`. */
  deadInserted: number;
}

interface SqlRow {
  event_id: string;
  type: string;
  chat_jid: string | null;
  body: string;
  state: OutboxState;
  start_attempts: number;
  next_attempt_at: number;
  created_at: number;
  started_at: number | null;
  last_error: string | null;
}

const toRow = (row: SqlRow): OutboxRow => ({
  eventId: row.event_id,
  type: row.type,
  chatJid: row.chat_jid,
  body: row.body,
  state: row.state,
  startAttempts: row.start_attempts,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
  startedAt: row.started_at,
  lastError: row.last_error,
});

type Statements = { [K in keyof typeof OUTBOX_SQL]: Database.Statement };

/**
 * The SQLite outbox, the only SQLite code of the collector (architecture.md §5, house style §1). WAL,
 * `synchronous=FULL`, one writer; every method is synchronous so a Baileys callback can make an
 * event durable before it returns (architecture.md §1). Idempotent on `event_id` (`INSERT OR IGNORE`).
 */
export class OutboxStore {
  private readonly statements: Statements;
  /** Multi-row pending inserts by row count (1…`INSERT_ROWS_PER_STATEMENT`), prepared on first use. */
  private readonly insertPendingRows = new Map<number, Database.Statement>();
  private readonly insertMany: (events: OutboxEventInput[], dead: OutboxDeadInput[], nowMs: number) => EnqueueResult;
  private readonly markStartedMany: (eventIds: string[], nowMs: number) => void;
  private readonly postponeMany: (eventIds: string[], nextAttemptAtMs: number) => void;
  private readonly pendingCommittedListeners = new Set<() => void>();

  private constructor(private readonly db: Database.Database) {
    this.statements = Object.fromEntries(
      Object.entries(OUTBOX_SQL).map(([name, sql]) => [name, db.prepare(sql)])
    ) as Statements;
    this.insertMany = db.transaction((events: OutboxEventInput[], dead: OutboxDeadInput[], nowMs: number) => {
      let inserted = 0;
      let deadInserted = 0;
      for (let first = 0; first < events.length; first += INSERT_ROWS_PER_STATEMENT)
        inserted += this.insertPendingChunk(events, first, nowMs);
      for (const e of dead)
        deadInserted += this.statements.insertDead.run(
          e.eventId,
          e.type,
          e.chatJid,
          e.body,
          nowMs,
          nowMs,
          e.reason
        ).changes;
      return {
        inserted: inserted + deadInserted,
        ignored: events.length + dead.length - inserted - deadInserted,
        deadInserted,
      };
    });
    this.markStartedMany = db.transaction((eventIds: string[], nowMs: number) => {
      for (const eventId of eventIds) this.statements.markStarted.run(nowMs, eventId);
    });
    this.postponeMany = db.transaction((eventIds: string[], nextAttemptAtMs: number) => {
      for (const eventId of eventIds) this.statements.postponeUntried.run(nextAttemptAtMs, eventId);
    });
  }

  /** Inserts `events[first … first + INSERT_ROWS_PER_STATEMENT)` with one statement; @returns rows inserted. */
  private insertPendingChunk(events: OutboxEventInput[], first: number, nowMs: number): number {
    const end = Math.min(events.length, first + INSERT_ROWS_PER_STATEMENT);
    const rows = end - first;
    let statement = this.insertPendingRows.get(rows);
    if (statement === undefined) {
      statement = this.db.prepare(insertPendingRowsSql(rows));
      this.insertPendingRows.set(rows, statement);
    }
    const parameters: Array<string | number | null> = new Array<string | number | null>(rows * 6);
    for (let i = first, p = 0; i < end; i++) {
      const e = events[i] as OutboxEventInput;
      parameters[p++] = e.eventId;
      parameters[p++] = e.type;
      parameters[p++] = e.chatJid;
      parameters[p++] = e.body;
      parameters[p++] = nowMs;
      parameters[p++] = nowMs;
    }
    return statement.run(parameters).changes;
  }

  /**
   * Opens (or creates) the outbox file and its schema; an older file is upgraded (`applyOutboxSchema`).
   * @param options.path - SQLite file path; its directory must exist.
   * @throws OutboxOpenError when the file cannot be opened or the schema created.
   */
  static open(options: { path: string }): OutboxStore {
    let db: Database.Database | undefined;
    try {
      db = openCollectorDatabase(options.path);
      // Random UUID keys dirty many index pages per batch: a larger checkpoint interval writes each
      // page back once for many commits, and a 16 MiB cache keeps the event_id index in memory.
      db.pragma('wal_autocheckpoint = 4000');
      db.pragma('cache_size = -16384');
      applyOutboxSchema(db);
      return new OutboxStore(db);
    } catch (err) {
      db?.close();
      throw new OutboxOpenError(options.path, { cause: err });
    }
  }

  /**
   * Rewrites row bodies in ONE transaction (erasure, architecture.md §14, ADR 0010): `transform` gets every
   * row whose body contains one of `needles` (plain substrings) and returns the new body, or null to
   * leave it. `event_id` and state stay, so a pending row is still delivered (with the new body).
   * @returns the event ids of the rows changed.
   */
  rewriteBodies(needles: readonly string[], transform: (row: OutboxRow) => string | null): string[] {
    if (needles.length === 0) return [];
    const where = needles.map(() => 'instr(body, ?) > 0').join(' OR ');
    const select = this.db.prepare(`SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE ${where}`);
    const update = this.db.prepare('UPDATE outbox SET body = ? WHERE event_id = ?');
    return this.db.transaction(() => {
      const changed: string[] = [];
      for (const row of (select.all(...needles) as SqlRow[]).map(toRow)) {
        const body = transform(row);
        if (body === null || body === row.body) continue;
        update.run(body, row.eventId);
        changed.push(row.eventId);
      }
      return changed;
    })();
  }

  /** Inserts `pending` rows in one synchronous transaction; existing `event_id`s are ignored (architecture.md §5). */
  enqueueBatch(events: OutboxEventInput[], nowMs: number): EnqueueResult {
    return this.notifyIfPending(this.insertMany(events, [], nowMs));
  }

  /** Inserts `dead` rows (reason in `last_error`) in one transaction; existing `event_id`s are ignored. */
  enqueueDead(items: OutboxDeadInput[], nowMs: number): EnqueueResult {
    return this.notifyIfPending(this.insertMany([], items, nowMs));
  }

  /** `pending` and `dead` rows of one Baileys event in ONE transaction (architecture.md §5). */
  enqueueWithDead(events: OutboxEventInput[], dead: OutboxDeadInput[], nowMs: number): EnqueueResult {
    return this.notifyIfPending(this.insertMany(events, dead, nowMs));
  }

  /**
   * Calls `listener` (synchronously, after the commit) whenever an enqueue inserted at least one
   * `pending` row, so the outbox relay starts the workflow without waiting for its poll (ADR 0008).
   * @returns a function that removes the listener.
   */
  onPendingCommitted(listener: () => void): () => void {
    this.pendingCommittedListeners.add(listener);
    return () => this.pendingCommittedListeners.delete(listener);
  }

  private notifyIfPending(result: EnqueueResult): EnqueueResult {
    if (result.inserted > result.deadInserted) for (const listener of this.pendingCommittedListeners) listener();
    return result;
  }

  /**
   * Up to `limit` `pending` rows with `next_attempt_at <= nowMs`, oldest first: ordered by
   * `next_attempt_at` then `created_at`, so never-tried rows come in capture order
   * (`next_attempt_at = created_at`) and a retried row when its backoff ends. Does not change them.
   */
  listDue(limit: number, nowMs: number): OutboxRow[] {
    return (this.statements.selectDue.all(nowMs, limit) as SqlRow[]).map(toRow);
  }

  /** Marks `pending` rows `started` (Temporal accepted or already had the workflow), in one transaction. */
  markStarted(eventIds: string[], nowMs: number): void {
    this.markStartedMany(eventIds, nowMs);
  }

  /** Counts a failed `workflow.start`: `start_attempts + 1`, `last_error`, new `next_attempt_at`; the row stays `pending`. */
  recordStartFailure(eventId: string, error: string, nextAttemptAtMs: number): void {
    this.statements.recordStartFailure.run(error, nextAttemptAtMs, eventId);
  }

  /**
   * Moves `next_attempt_at` of `pending` rows that were not tried (Temporal was found down by another
   * row), in one transaction; `start_attempts` and `last_error` stay as they were (ADR 0008).
   */
  postponeUntried(eventIds: string[], nextAttemptAtMs: number): void {
    this.postponeMany(eventIds, nextAttemptAtMs);
  }

  /**
   * Pending rows of history pushes (`source` `history` or `on_demand`, ADR 0016): what a history import still has
   * to hand to Temporal. Reads the bodies of pending rows only.
   */
  countPendingHistory(): number {
    return (this.statements.countPendingHistory.get() as { pending: number }).pending;
  }

  /** Number of rows per state (every state present, zero when empty). */
  countByState(): Record<OutboxState, number> {
    return this.statements.countByState.get() as Record<OutboxState, number>;
  }

  /** `created_at` (ms) of the oldest `pending` row, or null when none is pending. */
  oldestPendingCreatedAt(): number | null {
    const row = this.statements.oldestPending.get() as { created_at: number | null } | undefined;
    return row?.created_at ?? null;
  }

  /** Deletes `started` rows with `started_at < olderThanMs` (retention, architecture.md §5). @returns rows deleted. */
  pruneStarted(olderThanMs: number): number {
    return this.statements.pruneStarted.run(olderThanMs).changes;
  }

  /** One row by `event_id`, or undefined. */
  get(eventId: string): OutboxRow | undefined {
    const row = this.statements.get.get(eventId) as SqlRow | undefined;
    return row ? toRow(row) : undefined;
  }

  /** Up to `limit` `dead` rows, oldest first. */
  listDead(limit: number): OutboxRow[] {
    return (this.statements.listDead.all(limit) as SqlRow[]).map(toRow);
  }

  /** The durability pragmas in force (`journal_mode`, `synchronous`: 2 = FULL), for status and tests. */
  durabilitySettings(): { journalMode: string; synchronous: number } {
    return {
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.db.pragma('synchronous', { simple: true })),
    };
  }

  /**
   * Copies every page of the WAL into the file and truncates the WAL to zero bytes (`wal_checkpoint(TRUNCATE)`):
   * after an erasure the WAL still holds the pages as they were before it (ADR 0010). Waits up to the busy timeout
   * for readers; a reader that keeps its snapshot longer leaves the WAL in place.
   * @returns false when the WAL could not be emptied (a reader of another connection held it).
   */
  truncateWal(): boolean {
    const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number }>;
    return result !== undefined && result.busy === 0 && result.log <= 0;
  }

  /** Closes the database (idempotent). The store is unusable afterwards. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
