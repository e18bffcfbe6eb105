import type pg from 'pg';
import { parseJsonKeepingIntegers } from '../../common/exact-json-text.js';
import { toDatabaseAvailabilityError } from '../pool.js';

/** Where and how one message's status changes are delivered (ADR 0011). */
export interface StatusWebhookTarget {
  url: string;
  /** The key's signing secret as stored (`aes256gcm:…` or `clear:…`, ADR 0011). */
  sealedSecret: string;
  /** The caller's `metadata` from the request. */
  metadata: Record<string, unknown> | null;
  /** True while the endpoint has failed since its last success: the worker then reports a success too. */
  isFailing: boolean;
}

/** What {@link StatusWebhookTargets.recordOutcome} did to the key's endpoint. */
export interface StatusWebhookOutcomeResult {
  /** The endpoint is disabled (now or before): nothing more is sent until it is enabled again. */
  isDisabled: boolean;
  /** This outcome disabled it: the one report that raises the alert. */
  isDisabledNow: boolean;
  keyId: string | null;
  reason: string | null;
}

/**
 * Looks up the status webhook of an outbound message's API key (architecture.md §12). Read on every attempt,
 * so a URL an operator corrects reaches deliveries that are retrying.
 */
export class StatusWebhookTargets {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * @returns the target, or null when the message is unknown or its key has no webhook URL or secret.
   * @throws DatabaseUnavailableError / DatabaseBusyError when PostgreSQL cannot answer.
   */
  async find(messageId: string): Promise<StatusWebhookTarget | null> {
    let rows: Array<{ webhook_url: string; webhook_secret: string; metadata: string | null; is_failing: boolean }>;
    try {
      ({ rows } = await this.pool.query(
        `SELECT k.webhook_url, k.webhook_secret, m.metadata::text AS metadata,
                k.webhook_failing_since IS NOT NULL AS is_failing
           FROM outbound_messages m JOIN send_api_keys k ON k.id = m.api_key_id
          WHERE m.id = $1 AND k.webhook_url IS NOT NULL AND k.webhook_secret IS NOT NULL
            AND k.webhook_disabled_at IS NULL`,
        [messageId]
      ));
    } catch (err) {
      throw toDatabaseAvailabilityError(err) ?? err;
    }
    const row = rows[0];
    if (!row) return null;
    // Read as text: pg's jsonb parser would round integers beyond 2^53, which the webhook must carry (ADR 0014).
    const metadata = row.metadata === null ? null : (parseJsonKeepingIntegers(row.metadata) as Record<string, unknown>);
    return { url: row.webhook_url, sealedSecret: row.webhook_secret, metadata, isFailing: row.is_failing };
  }

  /**
   * Records one delivery attempt's outcome on the message's key (ADR 0014 decision 8): a success clears
   * `webhook_failing_since`; a failure sets it when unset, and disables the endpoint when it answered 410 or has
   * been failing for `disableAfterMs` at `now`. The key row is locked, so of concurrent reports exactly one
   * sees `isDisabledNow`.
   * @throws DatabaseUnavailableError / DatabaseBusyError when PostgreSQL cannot answer.
   */
  async recordOutcome(
    messageId: string,
    outcome: { isDelivered: boolean; status: number | null },
    now: Date,
    disableAfterMs: number
  ): Promise<StatusWebhookOutcomeResult> {
    const reason =
      outcome.status === 410
        ? 'the endpoint answered 410 Gone'
        : `the endpoint failed for ${
            disableAfterMs >= 3_600_000
              ? `${Math.round(disableAfterMs / 3_600_000)} h`
              : `${Math.round(disableAfterMs / 60_000)} min`
          } without a success`;
    let rows: Array<{ id: string; is_disabled: boolean; is_disabled_now: boolean; reason: string | null }>;
    try {
      ({ rows } = await this.pool.query(
        `WITH old AS (
           SELECT k.id, k.webhook_disabled_at AS was_disabled_at, k.webhook_failing_since AS was_failing_since
             FROM outbound_messages m JOIN send_api_keys k ON k.id = m.api_key_id WHERE m.id = $1 FOR UPDATE OF k),
         next AS (
           SELECT id, was_disabled_at,
                  CASE WHEN $2 THEN NULL ELSE COALESCE(was_failing_since, $4::timestamptz) END AS failing_since
             FROM old)
         UPDATE send_api_keys k
            SET webhook_failing_since = next.failing_since,
                webhook_disabled_at = COALESCE(next.was_disabled_at, CASE
                  WHEN NOT $2 AND ($3::int = 410 OR next.failing_since <= $4::timestamptz - $5 * interval '1 millisecond')
                  THEN $4::timestamptz END),
                webhook_disabled_reason = CASE WHEN next.was_disabled_at IS NULL AND NOT $2
                  AND ($3::int = 410 OR next.failing_since <= $4::timestamptz - $5 * interval '1 millisecond')
                  THEN $6 ELSE k.webhook_disabled_reason END
           FROM next WHERE k.id = next.id
         RETURNING k.id, k.webhook_disabled_at IS NOT NULL AS is_disabled,
                   k.webhook_disabled_at IS NOT NULL AND next.was_disabled_at IS NULL AS is_disabled_now,
                   k.webhook_disabled_reason AS reason`,
        [messageId, outcome.isDelivered, outcome.status, now, disableAfterMs, reason]
      ));
    } catch (err) {
      throw toDatabaseAvailabilityError(err) ?? err;
    }
    const row = rows[0];
    return {
      isDisabled: row?.is_disabled ?? false,
      isDisabledNow: row?.is_disabled_now ?? false,
      keyId: row?.id ?? null,
      reason: row?.reason ?? null,
    };
  }
}
