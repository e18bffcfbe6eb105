import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { Logger } from '../../common/logger.js';
import {
  extractProjectionFacts,
  hasProjectionWork,
  type ProjectionEvent,
} from '../projections/extract-projection-facts.js';
import { accountJidsOf } from '../projections/account-membership.js';
import { extractReadModelFacts, isEmptyReadModelFacts } from '../projections/extract-read-model-facts.js';
import { extractMessageFacts, hasMessageWork } from '../projections/message-facts.js';
import { eventTime } from '../projections/occurred-at.js';
import type { ParticipantRef } from '../projections/participant-ref.js';
import { DatabaseUnavailableError } from '../errors.js';
import { toDatabaseAvailabilityError } from '../pool.js';
import {
  isStaleErasureCheck,
  pseudonymizeErased,
  readTombstoneSnapshot,
  type TombstoneSnapshot,
} from '../privacy/erasure-tombstones.js';
import { applyIdentityStatements } from './apply-identities.js';
import type { ParsedIngestBody } from './parsed-ingest-body.js';
import { applyProjectionsInSavepoint } from './apply-projections.js';
import { EventLogBatchWriter, type EventLogBatchLimits } from './event-log-batch-writer.js';
import { encodeEventLogRow, insertEventLogRecords, type EventLogRow } from './event-log-rows.js';
import { emptyEncodedFacts, encodeMessageFacts, type EncodedMessageFacts } from './messages-repository.js';
import { KnownIdentities } from './known-identities.js';

/** What happened to one delivery. `isProjectionFailed`: the raw row is stored, a projection error recorded. */
export type StoreOutcome = { status: 'stored'; isProjectionFailed: boolean } | { status: 'duplicate' };

/** Options of {@link EventsRepository}. */
export interface EventsRepositoryOptions {
  /** Maintain the message read model (default true). False only to measure its cost (bench). */
  isMessageReadModelEnabled?: boolean;
  /** Limits of the group commit of events without projection work. */
  batchLimits?: Partial<EventLogBatchLimits>;
  /** Called with the row count of every batch statement that committed (the batch-size metric). */
  onInsertBatch?: (rows: number) => void;
  /**
   * `ERASURE_KEY` (ADR 0027): the key of the erasure tombstones `forget` writes. Null or absent: events are stored
   * only while the lake holds no tombstone (`ErasureKeyMissingError` otherwise).
   */
  erasureKey?: string | null;
}

/** Reads of the tombstones one delivery may need: each retry follows a `forget` or `rebuild` that committed. */
const MAX_ERASURE_CHECKS = 5;

/**
 * Stores raw events idempotently and updates the projections in the same transaction (architecture.md §1,
 * §8, §9). Events with projection work get a transaction of their own, on one client released in
 * `finally` (house style §10.5); the others (most messages) are written together with concurrent
 * ones by an {@link EventLogBatchWriter} (group commit, ADR 0006).
 */
export class EventsRepository {
  private readonly log: Logger;
  private readonly batchWriter: EventLogBatchWriter;
  private readonly knownIdentities = new KnownIdentities();
  private readonly isMessageReadModelEnabled: boolean;
  private readonly erasureKey: string | null;
  /** The tombstones last read, shared by concurrent deliveries; dropped when the fence says they changed. */
  private tombstones: Promise<TombstoneSnapshot> | null = null;
  constructor(
    private readonly pool: pg.Pool,
    logger: Logger,
    options: EventsRepositoryOptions = {}
  ) {
    this.log = logger.child({ component: 'events-repository' });
    this.batchWriter = new EventLogBatchWriter(pool, options.batchLimits, options.onInsertBatch, (generation) =>
      this.knownIdentities.observe(generation)
    );
    this.isMessageReadModelEnabled = options.isMessageReadModelEnabled ?? true;
    this.erasureKey = options.erasureKey ?? null;
  }

  /**
   * Stores one delivery (see {@link storeChecked}) after checking it against the erasure tombstones (ADR 0027): an
   * event from or about an erased member is stored pseudonymized exactly as `forget` left the lake. The INSERT
   * proves the check current (`whatsapp_erasure_fence`); when a `forget` or `rebuild` committed in between, the
   * tombstones are read again and the delivery checked anew.
   *
   * @throws ErasureKeyMissingError when the lake holds tombstones and no `erasureKey` was given.
   */
  async store(eventId: string, received: ParsedIngestBody, receivedAt: Date): Promise<StoreOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      const snapshot = await this.readTombstones();
      const body = pseudonymizeErased(received, snapshot, this.erasureKey);
      try {
        return await this.storeChecked(eventId, body, receivedAt, snapshot.generation);
      } catch (err) {
        if (!isStaleErasureCheck(err) || attempt >= MAX_ERASURE_CHECKS) throw err;
        if (this.tombstones !== null && (await this.tombstones).generation === snapshot.generation)
          this.tombstones = null;
      }
    }
  }

  private readTombstones(): Promise<TombstoneSnapshot> {
    if (this.tombstones === null) {
      const reading = readTombstoneSnapshot(this.pool).catch((err: unknown) => {
        this.tombstones = null;
        throw toDatabaseAvailabilityError(err) ?? err;
      });
      this.tombstones = reading;
    }
    return this.tombstones;
  }

  /**
   * Inserts one event with `ON CONFLICT (event_id) DO NOTHING`, then (only when inserted) applies
   * the projections inside a savepoint, and commits. Resolves only after COMMIT, so a caller may
   * answer 2xx. A concurrent first delivery of the same id waits on the unique index and resolves
   * `duplicate` once the other transaction commits.
   *
   * @param eventId - the `X-Event-Id` UUID.
   * @param body - the parsed, sanitized delivery, already checked against the erasure tombstones.
   * @param receivedAt - when the request arrived (`received_at`).
   * @param erasureGeneration - the identity generation the tombstones were read at (the INSERT's fence).
   * @throws DatabaseUnavailableError when PostgreSQL cannot be reached or drops the connection (HTTP 503).
   * @throws DatabaseBusyError when no pooled connection frees up within the connection timeout (HTTP 503).
   * @throws pg.DatabaseError for statement errors that are not about availability (HTTP 4xx/500 by code).
   */
  private async storeChecked(
    eventId: string,
    body: ParsedIngestBody,
    receivedAt: Date,
    erasureGeneration: number
  ): Promise<StoreOutcome> {
    const row: EventLogRow = {
      id: uuidv7(),
      eventId,
      type: body.type,
      chatJid: body.chatJid,
      bodyText: body.bodyText,
      receivedAt,
      capturedAt: body.capturedAt,
      upsertType: body.upsertType,
      occurredAt: body.occurredAt,
      isSanitized: body.isSanitized,
      accountJid: body.accountJid,
      accountLid: body.accountLid,
      legacyEventId: body.legacyEventId,
      source: body.source,
      erasureGeneration,
    };
    const time = eventTime(body.occurredAt, body.capturedAt, receivedAt);
    const event: ProjectionEvent = {
      eventId,
      type: body.type,
      chatJid: body.chatJid,
      payload: body.payload,
      effectiveAt: time.at,
      hasOwnTime: time.hasOwnTime,
      accountJids: accountJidsOf(body.accountJid, body.accountLid),
      source: body.source,
    };
    const facts = extractProjectionFacts(event);
    const messageFacts = extractMessageFacts(event);
    const readModel = this.isMessageReadModelEnabled ? this.encodeReadModel(event) : null;
    const named = messageFacts.identities;
    if (!hasProjectionWork(facts)) {
      // Identities this process already committed at this time change nothing (rules in KnownIdentities).
      const trusted = this.knownIdentities.generation;
      messageFacts.identities = this.knownIdentities.withoutKnown(named, event.effectiveAt.getTime());
      // No group work: the raw row (and the set-based message projections) in a batch statement,
      // committed before this resolves.
      const work = hasMessageWork(messageFacts)
        ? { eventId, type: body.type, effectiveAt: event.effectiveAt, facts: messageFacts }
        : null;
      const outcome = await this.batchWriter.insert(row, work, readModel);
      if (outcome === 'duplicate') return { status: 'duplicate' };
      const skipped = named.filter((ref) => !messageFacts.identities.includes(ref));
      // A forget or rebuild committed after the skip was decided: what was skipped may be gone, so write it.
      const isRepaired =
        skipped.length === 0 || this.knownIdentities.generation === trusted
          ? true
          : await this.writeSkippedIdentities(eventId, event.effectiveAt, skipped);
      if (outcome === 'stored' && isRepaired) this.knownIdentities.remember(named, event.effectiveAt.getTime());
      return { status: 'stored', isProjectionFailed: outcome === 'projection-failed' };
    }
    // Group work has a transaction of its own: it writes every identity the event names, cache or not.
    facts.participants.push(...named);
    const record = encodeEventLogRow(row);
    const client = await this.connect();
    let releaseError: Error | undefined;
    try {
      await client.query('BEGIN');
      const inserted = await insertEventLogRecords(client, [record], readModel);
      if (inserted.size === 0) {
        await client.query('COMMIT');
        return { status: 'duplicate' };
      }
      const projection = await applyProjectionsInSavepoint(client, event, facts);
      await client.query('COMMIT');
      if (projection.error) this.log.warn({ eventId, err: projection.error }, 'projection failed, raw event stored');
      return { status: 'stored', isProjectionFailed: projection.error !== undefined };
    } catch (err) {
      releaseError = err instanceof Error ? err : new Error('non-error thrown');
      await client.query('ROLLBACK').catch(() => undefined);
      throw toDatabaseAvailabilityError(err) ?? err;
    } finally {
      // A client whose transaction failed is destroyed, never returned to the pool mid-transaction.
      client.release(releaseError);
    }
  }

  /**
   * Writes identities a skip left out, after a `forget` or `rebuild` emptied the rows the skip relied on
   * (ADR 0019). @returns false (logged) when the write failed: the raw row is stored, as with any
   * projection failure.
   */
  private async writeSkippedIdentities(eventId: string, at: Date, refs: ParticipantRef[]): Promise<boolean> {
    const client = await this.connect();
    let releaseError: Error | undefined;
    try {
      await client.query('BEGIN');
      await applyIdentityStatements(client, [{ at, refs }]);
      await client.query('COMMIT');
      return true;
    } catch (err) {
      releaseError = err instanceof Error ? err : new Error('non-error thrown');
      await client.query('ROLLBACK').catch(() => undefined);
      this.log.warn({ eventId, err }, 'identities skipped before a forget or rebuild could not be written');
      return false;
    } finally {
      client.release(releaseError);
    }
  }

  /**
   * The message read-model facts of one event, encoded; null when it has none. A fact naming an id
   * longer than the read model's columns is left out (the raw row is still stored) and said in a warning.
   */
  private encodeReadModel(event: ProjectionEvent): EncodedMessageFacts | null {
    const facts = extractReadModelFacts(event);
    if (isEmptyReadModelFacts(facts)) return null;
    const encoded = emptyEncodedFacts();
    const leftOut = encodeMessageFacts(encoded, event.eventId, facts);
    if (leftOut > 0)
      this.log.warn(
        { eventId: event.eventId, leftOut },
        'message read-model facts left out: an id is longer than 255 characters; the raw event is stored'
      );
    return encoded;
  }

  /** Checks that PostgreSQL answers (`/readyz`). @throws DatabaseUnavailableError otherwise. */
  async ping(): Promise<void> {
    try {
      await this.pool.query('SELECT 1');
    } catch (err) {
      throw new DatabaseUnavailableError(err);
    }
  }

  /** @throws DatabaseBusyError on a pool checkout timeout, DatabaseUnavailableError on any other failure. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw toDatabaseAvailabilityError(err) ?? new DatabaseUnavailableError(err);
    }
  }
}
