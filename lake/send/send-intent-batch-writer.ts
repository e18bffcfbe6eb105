import type pg from 'pg';
import { GroupCommitQueue, type GroupCommitLimits } from '../group-commit-queue.js';
import { toDatabaseAvailabilityError } from '../pool.js';
import type { OutboundMessagesRepository } from './outbound-messages-repository.js';
import { REFUND_QUOTA_SQL } from './send-quota-sql.js';
import {
  acceptSendIntents,
  encodeSendIntent,
  type SendIntentCandidate,
  type SendIntentOutcome,
} from './send-intent-statement.js';

/** What {@link SendIntentBatchWriter.submit} resolves to: a statement outcome with races already looked up. */
export type SubmittedSendIntent = Exclude<SendIntentOutcome, { kind: 'raced' }>;

/** Limits of {@link SendIntentBatchWriter}. */
export type SendIntentBatchLimits = GroupCommitLimits;

export const DEFAULT_SEND_INTENT_BATCH_LIMITS: SendIntentBatchLimits = {
  maxConcurrentBatches: 2,
  maxBatchRows: 64,
  maxBatchChars: 4 * 1024 * 1024,
};

interface PendingIntent {
  candidate: SendIntentCandidate;
  encoded: string;
  /** `encoded.length`: what the batch limit counts. */
  size: number;
  resolve: (outcome: SubmittedSendIntent) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for `POST /api/v1/messages` (the ingest's ADR 0006 applied to send):
 * the checks and inserts of concurrent requests run as one statement (`acceptSendIntents`: one round
 * trip, one commit) instead of four round trips each. No timer: a batch is whatever queued while up to
 * `maxConcurrentBatches` earlier batches ran, so a lone request is written at once.
 *
 * Guarantees (architecture.md §12): a request's promise resolves only after the statement that decided
 * it has committed, so 202 still means "intent committed"; a statement error that is not about
 * availability is retried request by request, so one unstorable body fails only its own request; a
 * concurrent twin (same key and `Idempotency-Key` in another request) is looked up after the commit
 * and answered as an existing message, and the quota slot it took is given back (ADR 0015: a replay
 * never counts).
 */
export class SendIntentBatchWriter {
  private readonly batches: GroupCommitQueue<PendingIntent>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly messages: Pick<OutboundMessagesRepository, 'findByIdempotencyKey'>,
    limits: Partial<SendIntentBatchLimits> = {},
    private readonly onBatch: (rows: number) => void = () => undefined
  ) {
    this.batches = new GroupCommitQueue(
      { ...DEFAULT_SEND_INTENT_BATCH_LIMITS, ...limits },
      (batch) => this.writeBatch(batch),
      false
    );
  }

  /**
   * Checks and, when allowed, commits one send intent.
   *
   * @throws DatabaseUnavailableError / DatabaseBusyError when PostgreSQL cannot serve the statement (HTTP 503).
   * @throws pg.DatabaseError when PostgreSQL refuses this request's content itself.
   * @throws RangeError when `deliverBy` is an invalid Date.
   */
  submit(candidate: SendIntentCandidate): Promise<SubmittedSendIntent> {
    let encoded: string;
    try {
      encoded = encodeSendIntent(candidate);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => {
      this.batches.push({ candidate, encoded, size: encoded.length, resolve, reject });
    });
  }

  private async writeBatch(batch: PendingIntent[]): Promise<void> {
    let outcomes: SendIntentOutcome[];
    try {
      outcomes = await acceptSendIntents(
        this.pool,
        batch.map((pending) => pending.encoded)
      );
      this.onBatch(batch.length);
    } catch (err) {
      const availability = toDatabaseAvailabilityError(err);
      if (batch.length > 1 && availability === undefined) {
        // Find the request PostgreSQL refused: each alone, so the others are still decided.
        await Promise.all(batch.map((pending) => this.writeBatch([pending])));
        return;
      }
      for (const pending of batch) pending.reject(availability ?? err);
      return;
    }
    await Promise.all(batch.map((pending, index) => this.settle(pending, outcomes[index])));
  }

  private async settle(pending: PendingIntent, outcome: SendIntentOutcome | undefined): Promise<void> {
    try {
      if (outcome === undefined) throw new Error('accept statement returned no row for a request');
      if (outcome.kind !== 'raced') {
        pending.resolve(outcome);
        return;
      }
      const { apiKeyId, idempotencyKey } = pending.candidate;
      if (outcome.wasCounted) await this.pool.query(REFUND_QUOTA_SQL, [apiKeyId]);
      const existing = await this.messages.findByIdempotencyKey(apiKeyId, idempotencyKey);
      if (!existing) throw new Error('outbound message vanished between insert and lookup');
      pending.resolve({
        kind: 'existing',
        id: existing.id,
        requestHash: existing.requestHash,
        state: existing.state,
        createdAt: existing.createdAt,
      });
    } catch (err) {
      pending.reject(err);
    }
  }
}
