import type pg from 'pg';
import { emptyEncodedFacts, messageReadModelCtes, type EncodedMessageFacts } from './messages-repository.js';
import { toDatabaseAvailabilityError } from './pool.js';

/** One raw row of `whatsapp_event_logs` (DESIGN §9), as the events repository builds it. */
export interface EventLogRow {
  /** UUIDv7 primary key. */
  id: string;
  /** The `X-Event-Id` idempotency key, lower case. */
  eventId: string;
  type: string;
  chatJid: string | null;
  /** The whole request body as JSON text; PostgreSQL extracts `payload` from it. */
  bodyText: string;
  receivedAt: Date;
  capturedAt: Date | null;
  upsertType: string | null;
  occurredAt: Date | null;
  isSanitized: boolean;
}

/** What happened to one row: inserted now, or its `event_id` was already stored. */
export type EventLogInsertOutcome = 'stored' | 'duplicate';

/** Limits of {@link EventLogBatchWriter}. */
export interface EventLogBatchLimits {
  /** Batch statements in flight at once; each holds one pooled connection. */
  maxConcurrentBatches: number;
  /** Rows per statement. */
  maxBatchRows: number;
  /** Sum of row lengths (UTF-16 units of JSON) per statement; a larger single row still goes alone. */
  maxBatchChars: number;
}

export const DEFAULT_EVENT_LOG_BATCH_LIMITS: EventLogBatchLimits = {
  maxConcurrentBatches: 2,
  maxBatchRows: 64,
  maxBatchChars: 4 * 1024 * 1024,
};

interface PendingRow {
  eventId: string;
  /** The row as a member of the statement's JSON array. */
  recordJson: string;
  /** Message read-model facts of the row (issue #11), written by the same statement; null when none. */
  messageFacts: EncodedMessageFacts | null;
  resolve: (outcome: EventLogInsertOutcome) => void;
  reject: (err: unknown) => void;
}

// One statement for any batch size, so it is parsed and planned once per connection. The rows travel
// as one JSON array whose `b` members are the received body texts spliced in verbatim: PostgreSQL's
// jsonb parser reads every body exactly once, numbers included, and nothing is escaped twice.
const INSERT_BATCH_STATEMENT = 'wa_insert_event_log_batch';
const INSERT_BATCH_SQL = `
  INSERT INTO whatsapp_event_logs
    (id, event_id, type, chat_jid, payload, received_at, captured_at, upsert_type, occurred_at, sanitized)
  SELECT r.i, r.e, r.t, r.c, r.b -> 'payload', r.r, r.ca, r.u, r.o, r.s
  FROM jsonb_to_recordset($1::jsonb)
    AS r(i uuid, e uuid, t text, c text, b jsonb, r timestamptz, ca timestamptz, u text, o timestamptz, s boolean)
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id`;

// The same insert plus the message read model (issue #11 item 1, ADR 0006): one statement, one commit;
// facts apply only for rows inserted now, so a redelivery changes nothing.
const INSERT_WITH_MESSAGES_STATEMENT = 'wa_insert_event_log_batch_with_messages';
const INSERT_WITH_MESSAGES_SQL = `
  WITH wa_inserted AS (${INSERT_BATCH_SQL}),
  ${messageReadModelCtes('$2', 'f.ev IN (SELECT event_id FROM wa_inserted)')}
  SELECT event_id FROM wa_inserted`;

/**
 * Group commit for raw event rows that need no projection work: rows stored by concurrent requests
 * are written by one `INSERT … ON CONFLICT (event_id) DO NOTHING` statement (one round trip, one
 * commit) instead of one each. Batches form only from rows that are already waiting while earlier
 * batches run — there is no timer, so a lone request is written at once.
 *
 * Guarantees (DESIGN §1 "2xx means committed", §8):
 * - a row's promise resolves only after the statement that wrote it has committed;
 * - a statement error that is not about availability is retried row by row, so one unstorable body
 *   fails only its own request;
 * - rows within a batch are sorted by `event_id`, so two batches that share ids lock the unique
 *   index in the same order and cannot deadlock; an id repeated within a batch is written once and
 *   its repeats resolve `duplicate`.
 */
export class EventLogBatchWriter {
  private readonly queue: PendingRow[] = [];
  private inFlight = 0;
  private readonly limits: EventLogBatchLimits;

  constructor(
    private readonly pool: pg.Pool,
    limits: Partial<EventLogBatchLimits> = {},
    private readonly onBatch: (rows: number) => void = () => undefined
  ) {
    this.limits = { ...DEFAULT_EVENT_LOG_BATCH_LIMITS, ...limits };
  }

  /**
   * Inserts one row (idempotent on `event_id`) and resolves once it is committed.
   *
   * @throws DatabaseUnavailableError when PostgreSQL cannot be reached or drops the connection (HTTP 503).
   * @throws DatabaseBusyError when no pooled connection frees up within the connection timeout (HTTP 503).
   * @throws pg.DatabaseError when PostgreSQL refuses this row itself (e.g. a numeric out of range).
   * @throws RangeError when a time of the row is an invalid Date.
   */
  insert(row: EventLogRow, messageFacts: EncodedMessageFacts | null = null): Promise<EventLogInsertOutcome> {
    let recordJson: string;
    try {
      // Encoded here, so a row that cannot be encoded fails its own request and never a batch.
      recordJson = encodeEventLogRow(row);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ eventId: row.eventId, recordJson, messageFacts, resolve, reject });
      this.startBatches();
    });
  }

  private startBatches(): void {
    while (this.inFlight < this.limits.maxConcurrentBatches && this.queue.length > 0) {
      const batch = this.takeBatch();
      this.inFlight += 1;
      void this.writeBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.startBatches();
      });
    }
  }

  private takeBatch(): PendingRow[] {
    let chars = 0;
    let count = 0;
    for (const pending of this.queue) {
      if (count === this.limits.maxBatchRows) break;
      if (count > 0 && chars + pending.recordJson.length > this.limits.maxBatchChars) break;
      chars += pending.recordJson.length;
      count += 1;
    }
    return this.queue.splice(0, count);
  }

  private async writeBatch(batch: PendingRow[]): Promise<void> {
    try {
      const inserted = await this.runStatement(batch);
      this.onBatch(batch.length);
      for (const pending of batch) pending.resolve(inserted.delete(pending.eventId) ? 'stored' : 'duplicate');
    } catch (err) {
      // Busy or unavailable concerns the whole statement: every row of the batch gets the same answer.
      const availability = toDatabaseAvailabilityError(err);
      if (batch.length > 1 && availability === undefined) {
        // Find the row PostgreSQL refused: each row alone, so the others are still stored.
        await Promise.all(batch.map((pending) => this.writeBatch([pending])));
        return;
      }
      const failure: unknown = availability ?? err;
      for (const pending of batch) pending.reject(failure);
    }
  }

  /** Runs the statement on the pool (autocommit); returns the event ids it inserted. */
  private runStatement(batch: readonly PendingRow[]): Promise<Set<string>> {
    const sorted = [...batch].sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
    const members = sorted.map((pending) => pending.recordJson);
    const withFacts = sorted.filter((pending) => pending.messageFacts !== null);
    if (withFacts.length === 0) return insertEventLogRecords(this.pool, members);
    const facts = emptyEncodedFacts();
    for (const { messageFacts } of withFacts) {
      if (!messageFacts) continue;
      facts.m.push(...messageFacts.m);
      facts.e.push(...messageFacts.e);
      facts.v.push(...messageFacts.v);
      facts.x.push(...messageFacts.x);
    }
    return insertEventLogRecords(this.pool, members, facts);
  }
}

/**
 * The one raw-row INSERT of the lake (DESIGN §9): writes rows encoded by {@link encodeEventLogRow}
 * with `ON CONFLICT (event_id) DO NOTHING`, on the pool (autocommit) or inside a caller's transaction;
 * with `messageFacts`, the same statement writes the message read model of the rows inserted now.
 * DO NOTHING also skips a repeat of an id inserted earlier by the same statement.
 *
 * @returns the event ids inserted now (once each); an id missing from it was already stored.
 * @throws pg.DatabaseError (or a connection error) as `pg` reports it.
 */
export async function insertEventLogRecords(
  queryable: pg.Pool | pg.ClientBase,
  recordJsons: readonly string[],
  messageFacts: EncodedMessageFacts | null = null
): Promise<Set<string>> {
  const records = `[${recordJsons.join(',')}]`;
  const result = await queryable.query<{ event_id: string }>(
    messageFacts
      ? {
          name: INSERT_WITH_MESSAGES_STATEMENT,
          text: INSERT_WITH_MESSAGES_SQL,
          values: [records, JSON.stringify(messageFacts)],
        }
      : { name: INSERT_BATCH_STATEMENT, text: INSERT_BATCH_SQL, values: [records] }
  );
  return new Set(result.rows.map((row) => row.event_id));
}

/**
 * Encodes one row as a member of {@link insertEventLogRecords}' JSON array; the body text is spliced
 * in verbatim (it is a JSON value `JSON.parse` accepted).
 *
 * @throws RangeError when a time of the row is an invalid Date.
 */
export function encodeEventLogRow(row: EventLogRow): string {
  const scalars = JSON.stringify({
    i: row.id,
    e: row.eventId,
    t: row.type,
    c: row.chatJid,
    r: row.receivedAt.toISOString(),
    ca: row.capturedAt?.toISOString() ?? null,
    u: row.upsertType,
    o: row.occurredAt?.toISOString() ?? null,
    s: row.isSanitized,
  });
  return `${scalars.slice(0, -1)},"b":${row.bodyText}}`;
}
