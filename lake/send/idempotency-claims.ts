import type pg from 'pg';
import { toDatabaseAvailabilityError } from '../pool.js';

/**
 * How long a claim holds when its process never releases it (the process died mid-request). Longer than any
 * accept can take (pool checkout 5 s plus the statement); a claim that outlives its request only turns a 409
 * into a replay, which the unique index of `outbound_messages` still makes safe (ADR 0030).
 */
export const IDEMPOTENCY_CLAIM_LEASE_MS = 60_000;

/** One request's claim on an `Idempotency-Key` of an API key; `token` is the message id the request would create. */
export interface IdempotencyClaim {
  apiKeyId: string;
  idempotencyKey: string;
  token: string;
}

// One statement in its own (autocommit) transaction: a concurrent claim of the same key waits on the primary
// key's index entry and then sees the committed row, so exactly one of two racing requests gets the row back.
// A row whose lease has passed is taken over; the API key's other lapsed claims (left by a crashed process, for
// keys never sent again) are deleted on the way, an index range as small as the key's requests in flight.
const CLAIM_SQL = `
  WITH lapsed AS (
    DELETE FROM send_idempotency_claims
     WHERE api_key_id = $1 AND idempotency_key <> $2 AND expires_at < now()
  )
  INSERT INTO send_idempotency_claims AS c (api_key_id, idempotency_key, token, expires_at)
  VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))
  ON CONFLICT (api_key_id, idempotency_key) DO UPDATE
    SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
    WHERE c.expires_at < now()
  RETURNING token`;

const RELEASE_SQL = `DELETE FROM send_idempotency_claims WHERE api_key_id = $1 AND idempotency_key = $2 AND token = $3`;

/**
 * The in-flight half of draft-ietf-httpapi-idempotency-key-header §2.7 across every ingest API process of one
 * lake (ADR 0030, architecture.md §12): a request claims its `(API key, Idempotency-Key)` before it is accepted;
 * a second request finding a live claim answers 409. The accept statement releases the claim in the transaction
 * that commits the intent (`send-intent-statement.ts`), so a repeat after the 202 finds the message, never the
 * claim; a request that fails before that releases it with {@link IdempotencyClaims.release}.
 */
export class IdempotencyClaims {
  constructor(
    private readonly pool: pg.Pool,
    private readonly leaseMs = IDEMPOTENCY_CLAIM_LEASE_MS
  ) {}

  /**
   * Claims the key for this request.
   * @returns true when this request holds the claim now, false when another request holds a live one.
   * @throws DatabaseUnavailableError / DatabaseBusyError when PostgreSQL cannot serve it (HTTP 503).
   */
  async claim(claim: IdempotencyClaim): Promise<boolean> {
    const rows = await this.run('wa_claim_idempotency_key', CLAIM_SQL, [
      claim.apiKeyId,
      claim.idempotencyKey,
      claim.token,
      this.leaseMs,
    ]);
    return rows === 1;
  }

  /**
   * Gives the claim up if this request still holds it (a later holder's claim is left alone).
   * @throws DatabaseUnavailableError / DatabaseBusyError when PostgreSQL cannot serve it; the lease ends it then.
   */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.run('wa_release_idempotency_key', RELEASE_SQL, [claim.apiKeyId, claim.idempotencyKey, claim.token]);
  }

  // Named statements: one on every request's path, so each connection parses and plans it once.
  private async run(name: string, text: string, values: unknown[]): Promise<number> {
    try {
      return (await this.pool.query({ name, text, values })).rowCount ?? 0;
    } catch (err) {
      throw toDatabaseAvailabilityError(err) ?? err;
    }
  }
}
