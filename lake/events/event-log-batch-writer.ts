import type pg from 'pg';
import { GroupCommitQueue, type GroupCommitLimits } from '../group-commit-queue.js';
import { toDatabaseAvailabilityError } from '../pool.js';
import { insertWithMessageProjections } from './apply-message-projections.js';
import type { MessageProjectionItem } from './message-projection-item.js';
import { encodeEventLogRow, insertEventLogRecords, type EventLogRow } from './event-log-rows.js';
import { loneLidsOf } from './lone-lid-participants.js';
import { emptyEncodedFacts, mergeEncodedFacts, type EncodedMessageFacts } from './messages-repository.js';

/**
 * What happened to one row: inserted now, or its `event_id` was already stored; `projection-failed`:
 * inserted, but its message projections failed and were recorded in `whatsapp_projection_errors`.
 */
export type EventLogInsertOutcome = 'stored' | 'duplicate' | 'projection-failed';

/** Limits of {@link EventLogBatchWriter}. */
export type EventLogBatchLimits = GroupCommitLimits;

export const DEFAULT_EVENT_LOG_BATCH_LIMITS: EventLogBatchLimits = {
  maxConcurrentBatches: 1,
  maxBatchRows: 64,
  maxBatchChars: 4 * 1024 * 1024,
};

interface PendingRow {
  eventId: string;
  /** The row as a member of the statement's JSON array. */
  recordJson: string;
  /** `recordJson.length`: what the batch limit counts. */
  size: number;
  /** Message projections to apply in the statement's transaction, or null. */
  work: MessageProjectionItem | null;
  /** Message read-model facts of the row, written by the INSERT statement itself; null when none. */
  readModel: EncodedMessageFacts | null;
  resolve: (outcome: EventLogInsertOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for raw event rows that need no per-event projection transaction: rows stored by concurrent requests
 * are written by one `INSERT … ON CONFLICT (event_id) DO NOTHING` statement (one round trip, one
 * commit) instead of one each. Batches form only from rows that are already waiting while earlier
 * batches run — there is no timer, so a lone request is written at once. While one statement runs, the
 * next waits until as many rows queue as the last finished statement carried, or until the running one
 * finishes, whichever comes first (so answered requests coming back do not each start a one-row statement).
 *
 * Guarantees (architecture.md §1 "2xx means committed", §8):
 * - a row's promise resolves only after the statement that wrote it has committed;
 * - a statement error that is not about availability is retried row by row, so one unstorable body
 *   fails only its own request;
 * - rows with message projections (identities) are projected in the statement's
 *   transaction by set-based steps (`applyMessageProjections`); a batch without any stays autocommit, and
 *   so does one whose identities are only lone LIDs: the INSERT writes their participant rows itself
 *   (`lone-lid-participants.ts`); if that statement fails, its rows are retried alone on the transaction path;
 * - rows within a batch are sorted by `event_id`, so two batches that share ids lock the unique
 *   index in the same order and cannot deadlock; an id repeated within a batch is written once and
 *   its repeats resolve `duplicate`.
 */
export class EventLogBatchWriter {
  private readonly batches: GroupCommitQueue<PendingRow>;

  constructor(
    private readonly pool: pg.Pool,
    limits: Partial<EventLogBatchLimits> = {},
    private readonly onBatch: (rows: number) => void = () => undefined,
    /** Told the identity generation each statement read, before its rows resolve (ADR 0019). */
    private readonly onGeneration: (generation: number) => void = () => undefined
  ) {
    this.batches = new GroupCommitQueue(
      { ...DEFAULT_EVENT_LOG_BATCH_LIMITS, ...limits },
      (batch) => this.writeBatch(batch),
      true
    );
  }

  /**
   * Inserts one row (idempotent on `event_id`) and resolves once it is committed.
   *
   * @throws DatabaseUnavailableError when PostgreSQL cannot be reached or drops the connection (HTTP 503).
   * @throws DatabaseBusyError when no pooled connection frees up within the connection timeout (HTTP 503).
   * @throws pg.DatabaseError when PostgreSQL refuses this row itself (e.g. a numeric out of range).
   * @throws RangeError when a time of the row is an invalid Date.
   */
  insert(
    row: EventLogRow,
    work: MessageProjectionItem | null = null,
    readModel: EncodedMessageFacts | null = null
  ): Promise<EventLogInsertOutcome> {
    let recordJson: string;
    try {
      // Encoded here, so a row that cannot be encoded fails its own request and never a batch.
      recordJson = encodeEventLogRow(row);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => {
      this.batches.push({
        eventId: row.eventId,
        recordJson,
        size: recordJson.length,
        work,
        readModel,
        resolve,
        reject,
      });
    });
  }

  /**
   * @param isInlineAllowed - false on a retry of rows alone: a statement that failed runs them through the
   *   transaction path, whose savepoints keep a failing projection from failing its raw row (architecture.md §8).
   */
  private async writeBatch(batch: PendingRow[], isInlineAllowed = true): Promise<void> {
    let usedInline = false;
    try {
      const statement = this.runStatement(batch, isInlineAllowed);
      usedInline = statement.isInline;
      const { inserted, failed } = await statement.result;
      this.onBatch(batch.length);
      for (const pending of batch) {
        const isInserted = inserted.delete(pending.eventId);
        pending.resolve(isInserted ? (failed.has(pending.eventId) ? 'projection-failed' : 'stored') : 'duplicate');
      }
    } catch (err) {
      // Busy or unavailable concerns the whole statement: every row of the batch gets the same answer.
      const availability = toDatabaseAvailabilityError(err);
      if (availability === undefined && (batch.length > 1 || usedInline)) {
        // Find the row PostgreSQL refused: each row alone, so the others are still stored.
        await Promise.all(batch.map((pending) => this.writeBatch([pending], false)));
        return;
      }
      const failure: unknown = availability ?? err;
      for (const pending of batch) pending.reject(failure);
    }
  }

  /**
   * Runs the statement on the pool (autocommit) — with the identity work inline when it is only lone LIDs
   * (`loneLidsOf`) — or in a transaction with the message projections of its rows;
   * resolves to the event ids it inserted and those whose projection failed.
   */
  private runStatement(
    batch: readonly PendingRow[],
    isInlineAllowed: boolean
  ): { isInline: boolean; result: Promise<{ inserted: Set<string>; failed: Set<string> }> } {
    const sorted = [...batch].sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    const members = sorted.map((pending) => pending.recordJson);
    const work = sorted.flatMap((pending) => (pending.work ? [pending.work] : []));
    const readModel = emptyEncodedFacts();
    for (const pending of sorted) if (pending.readModel) mergeEncodedFacts(readModel, pending.readModel);
    const loneLids = work.length === 0 ? [] : isInlineAllowed ? loneLidsOf(work) : null;
    if (loneLids !== null) {
      const inserted = insertEventLogRecords(this.pool, members, readModel, loneLids, this.onGeneration);
      return { isInline: loneLids.length > 0, result: inserted.then((ids) => ({ inserted: ids, failed: new Set() })) };
    }
    return {
      isInline: false,
      result: insertWithMessageProjections(this.pool, members, work, readModel, this.onGeneration),
    };
  }
}
