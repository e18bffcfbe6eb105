import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { toDatabaseAvailabilityError } from './pool.js';

/** A recipient as the send path stores it (normalized by `send/recipient.ts`). */
export type Recipient = { kind: 'group'; jid: string } | { kind: 'phone'; jid: string };

/** An API key as listed (never the key itself: only its hash is stored). */
export interface ApiKeyRecord {
  id: string;
  name: string;
  accountId: string;
  keyPrefix: string;
  webhookUrl: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** An opt-in: `phoneJid` agreed to receive direct messages from `accountId`. */
export interface OptInRecord {
  accountId: string;
  phoneJid: string;
  note: string | null;
  createdAt: Date;
}

async function run<T extends pg.QueryResultRow>(pool: pg.Pool, sql: string, params: unknown[]): Promise<T[]> {
  try {
    return (await pool.query<T>(sql, params)).rows;
  } catch (err) {
    throw toDatabaseAvailabilityError(err) ?? err;
  }
}

/**
 * API keys, sending accounts and opt-ins of outbound send (architecture.md §12, issue #10): the SQL behind
 * `wa-lake api-keys …`, `wa-lake opt-in …` and the request API's key and recipient checks.
 * Methods throw DatabaseUnavailableError/DatabaseBusyError when PostgreSQL cannot serve them.
 */
export class SendAdminRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Stores a new key's hash; `keyHash` is the hex SHA-256 of the key. @returns the key's id. */
  async createApiKey(input: {
    name: string;
    accountId: string;
    keyHash: string;
    keyPrefix: string;
    webhookUrl: string | null;
    /** The status-webhook signing secret as sealed by `sealWebhookSecret` (ADR 0011); null without a webhook. */
    sealedWebhookSecret?: string | null;
  }): Promise<string> {
    const id = randomUUID();
    await run(
      this.pool,
      `INSERT INTO send_api_keys (id, name, account_id, key_hash, key_prefix, webhook_url, webhook_secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        input.name,
        input.accountId,
        input.keyHash,
        input.keyPrefix,
        input.webhookUrl,
        input.sealedWebhookSecret ?? null,
      ]
    );
    return id;
  }

  /** The active (not revoked) key with this hash, or null. */
  async findActiveApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const rows = await run<Record<string, unknown>>(
      this.pool,
      `SELECT * FROM send_api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
      [keyHash]
    );
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  /** Every key, newest first. */
  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await run<Record<string, unknown>>(
      this.pool,
      `SELECT * FROM send_api_keys ORDER BY created_at DESC`,
      []
    );
    return rows.map(toApiKey);
  }

  /**
   * Keys (active or revoked) whose id or shown key prefix starts with `prefix` (issue #10 follow-up: an
   * operator types as much of either as they see). Empty `prefix` matches nothing.
   */
  async findApiKeysByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
    if (prefix === '') return [];
    const rows = await run<Record<string, unknown>>(
      this.pool,
      `SELECT * FROM send_api_keys
        WHERE starts_with(id::text, lower($1)) OR starts_with(key_prefix, $1)
        ORDER BY created_at DESC`,
      [prefix]
    );
    return rows.map(toApiKey);
  }

  /** Revokes the key `id` if it is active. @returns whether this call revoked it. */
  async revokeApiKey(id: string): Promise<boolean> {
    const rows = await run(
      this.pool,
      `UPDATE send_api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id`,
      [id]
    );
    return rows.length > 0;
  }

  /** Records the account's own participant ids (LID and/or phone JID), used to check group membership. */
  async setAccountParticipants(accountId: string, participantIds: readonly string[]): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO send_accounts (account_id, participant_ids) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET participant_ids = EXCLUDED.participant_ids, updated_at = now()`,
      [accountId, participantIds]
    );
  }

  /** Adds an opt-in (idempotent). */
  async addOptIn(accountId: string, phoneJid: string, note: string | null): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO send_opt_ins (account_id, phone_jid, note) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [accountId, phoneJid, note]
    );
  }

  /** Removes an opt-in. @returns 1 when one was removed, 0 when there was none. */
  async removeOptIn(accountId: string, phoneJid: string): Promise<number> {
    const rows = await run(
      this.pool,
      `DELETE FROM send_opt_ins WHERE account_id = $1 AND phone_jid = $2 RETURNING phone_jid`,
      [accountId, phoneJid]
    );
    return rows.length;
  }

  /** Opt-ins of one account, oldest first. */
  async listOptIns(accountId: string): Promise<OptInRecord[]> {
    const rows = await run<{ account_id: string; phone_jid: string; note: string | null; created_at: Date }>(
      this.pool,
      `SELECT * FROM send_opt_ins WHERE account_id = $1 ORDER BY created_at`,
      [accountId]
    );
    return rows.map((row) => ({
      accountId: row.account_id,
      phoneJid: row.phone_jid,
      note: row.note,
      createdAt: row.created_at,
    }));
  }

  /**
   * Whether `accountId` may send to `recipient` (architecture.md §12): a phone needs an opt-in; a group must be
   * known to the lake (the collector snapshots every group it participates in) and, when the account's
   * own participant ids are recorded, one of them must be a current member (no `left_at`). The request API
   * applies the same rule inside its accept statement (`send-intent-statement.ts`); this one serves callers
   * that only ask (the send demo waits for its groups with it).
   */
  async isRecipientAllowed(accountId: string, recipient: Recipient): Promise<boolean> {
    if (recipient.kind === 'phone') {
      const rows = await run(this.pool, `SELECT 1 FROM send_opt_ins WHERE account_id = $1 AND phone_jid = $2`, [
        accountId,
        recipient.jid,
      ]);
      return rows.length > 0;
    }
    const rows = await run(
      this.pool,
      `SELECT 1 FROM whatsapp_groups g
        WHERE g.jid = $2
          AND (COALESCE(cardinality((SELECT participant_ids FROM send_accounts WHERE account_id = $1)), 0) = 0
               OR EXISTS (SELECT 1 FROM whatsapp_group_memberships m
                           WHERE m.group_jid = g.jid AND m.left_at IS NULL
                             AND m.participant_id = ANY ((SELECT participant_ids FROM send_accounts WHERE account_id = $1)::text[])))`,
      [accountId, recipient.jid]
    );
    return rows.length > 0;
  }
}

function toApiKey(row: Record<string, unknown>): ApiKeyRecord {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    accountId: row['account_id'] as string,
    keyPrefix: row['key_prefix'] as string,
    webhookUrl: (row['webhook_url'] as string | null) ?? null,
    createdAt: row['created_at'] as Date,
    revokedAt: (row['revoked_at'] as Date | null) ?? null,
  };
}
