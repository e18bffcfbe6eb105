import type pg from 'pg';
import { parseJsonKeepingIntegers } from '../../common/exact-json-text.js';
import { toDatabaseAvailabilityError } from '../pool.js';

/** Where and how one message's status changes are delivered (issue #10 item 8). */
export interface StatusWebhookTarget {
  url: string;
  /** The key's signing secret as stored (`aes256gcm:…` or `clear:…`, ADR 0011). */
  sealedSecret: string;
  /** The caller's `metadata` from the request. */
  metadata: Record<string, unknown> | null;
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
    let rows: Array<{ webhook_url: string; webhook_secret: string; metadata: string | null }>;
    try {
      ({ rows } = await this.pool.query(
        `SELECT k.webhook_url, k.webhook_secret, m.metadata::text AS metadata
           FROM outbound_messages m JOIN send_api_keys k ON k.id = m.api_key_id
          WHERE m.id = $1 AND k.webhook_url IS NOT NULL AND k.webhook_secret IS NOT NULL`,
        [messageId]
      ));
    } catch (err) {
      throw toDatabaseAvailabilityError(err) ?? err;
    }
    const row = rows[0];
    if (!row) return null;
    // Read as text: pg's jsonb parser would round integers beyond 2^53, which the webhook must carry (ADR 0014).
    const metadata = row.metadata === null ? null : (parseJsonKeepingIntegers(row.metadata) as Record<string, unknown>);
    return { url: row.webhook_url, sealedSecret: row.webhook_secret, metadata };
  }
}
