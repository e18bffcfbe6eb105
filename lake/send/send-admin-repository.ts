import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { queryRows } from '../pool.js';
import { UTC_DAY_SQL, UTC_MONTH_SQL } from './send-quota-sql.js';
import { recipientAllowListJoins, recipientIsAllowedSql } from './send-recipient-allow-list.js';

/** A recipient as the send path stores it (normalized by `send/recipient.ts`). */
export type Recipient = { kind: 'group'; jid: string } | { kind: 'phone'; jid: string };

/** An API key as listed (never the key itself: only its hash is stored). */
export interface ApiKeyRecord {
  id: string;
  name: string;
  accountId: string;
  keyPrefix: string;
  webhookUrl: string | null;
  /** Whether a status-webhook signing secret is stored (never the secret). */
  hasWebhookSecret: boolean;
  createdAt: Date;
  revokedAt: Date | null;
  /** Most messages accepted per UTC day / month (ADR 0015); null = no limit. */
  dailyLimit: number | null;
  monthlyLimit: number | null;
  /** `test`: sends only to test recipients; `live`: only for an approved account (ADR 0015). */
  environment: SendEnvironment;
  /** Whether the key's account is approved for live sending (`wa-lake accounts approve`). */
  isAccountApproved: boolean;
}

/** The environment of an API key (ADR 0015). */
export type SendEnvironment = 'test' | 'live';

/** A number or group a test key may send to. */
export interface TestRecipientRecord {
  accountId: string;
  jid: string;
  note: string | null;
  createdAt: Date;
}

/** An opt-in: `phoneJid` agreed to receive direct messages from `accountId`. */
export interface OptInRecord {
  accountId: string;
  phoneJid: string;
  note: string | null;
  createdAt: Date;
}

const SELECT_KEY = `SELECT k.*, COALESCE((SELECT a.approved_at IS NOT NULL FROM send_accounts a
                                             WHERE a.account_id = k.account_id), false) AS is_account_approved
                      FROM send_api_keys k`;

const run = queryRows;

/**
 * API keys, sending accounts and opt-ins of outbound send (architecture.md §12, ADR 0009): the SQL behind
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
    /** Quotas (ADR 0015): most accepted messages per UTC day / month; null or absent = none. */
    dailyLimit?: number | null;
    monthlyLimit?: number | null;
    /** Default `live` (ADR 0015). */
    environment?: SendEnvironment;
  }): Promise<string> {
    const id = randomUUID();
    // A limited key gets its usage row at once: the accept statement only updates it (send-quota-sql.ts).
    await run(
      this.pool,
      `WITH k AS (
         INSERT INTO send_api_keys (id, name, account_id, key_hash, key_prefix, webhook_url, webhook_secret,
                                    daily_limit, monthly_limit, environment)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         RETURNING id, daily_limit IS NOT NULL OR monthly_limit IS NOT NULL AS has_quota
       )
       INSERT INTO send_api_key_usage (api_key_id, day, month)
       SELECT id, ${UTC_DAY_SQL}, ${UTC_MONTH_SQL} FROM k WHERE has_quota`,
      [
        id,
        input.name,
        input.accountId,
        input.keyHash,
        input.keyPrefix,
        input.webhookUrl,
        input.sealedWebhookSecret ?? null,
        input.dailyLimit ?? null,
        input.monthlyLimit ?? null,
        input.environment ?? 'live',
      ]
    );
    return id;
  }

  /** The active (not revoked) key with this hash, or null. */
  async findActiveApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const rows = await run<Record<string, unknown>>(
      this.pool,
      `${SELECT_KEY} WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash]
    );
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  /** Every key, newest first. */
  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await run<Record<string, unknown>>(this.pool, `${SELECT_KEY} ORDER BY k.created_at DESC`, []);
    return rows.map(toApiKey);
  }

  /**
   * Keys (active or revoked) whose id or shown key prefix starts with `prefix` (ADR 0009: an
   * operator types as much of either as they see). Empty `prefix` matches nothing.
   */
  async findApiKeysByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
    if (prefix === '') return [];
    const rows = await run<Record<string, unknown>>(
      this.pool,
      `${SELECT_KEY}
        WHERE starts_with(k.id::text, lower($1)) OR starts_with(k.key_prefix, $1)
        ORDER BY k.created_at DESC`,
      [prefix]
    );
    return rows.map(toApiKey);
  }

  /**
   * Changes the status webhook of key `id`, active or revoked (its messages still report their states; ADR 0017).
   * An absent field stays as it is; `webhookUrl: null` removes the URL (no more status webhooks). Deliveries read
   * both on every attempt, so those retrying use the new values.
   * @returns whether the key exists.
   */
  async updateApiKeyWebhook(
    id: string,
    change: { webhookUrl?: string | null; sealedWebhookSecret?: string | null }
  ): Promise<boolean> {
    const rows = await run(
      this.pool,
      `UPDATE send_api_keys
          SET webhook_url = CASE WHEN $2 THEN $3 ELSE webhook_url END,
              webhook_secret = CASE WHEN $4 THEN $5 ELSE webhook_secret END
        WHERE id = $1
        RETURNING id`,
      [
        id,
        change.webhookUrl !== undefined,
        change.webhookUrl ?? null,
        change.sealedWebhookSecret !== undefined,
        change.sealedWebhookSecret ?? null,
      ]
    );
    return rows.length > 0;
  }

  /**
   * Enables the status webhook of key `id` again (ADR 0014 decision 8): clears `webhook_disabled_at`, its reason
   * and `webhook_failing_since`. @returns the reason it had been disabled for, or null when it was not disabled.
   */
  async enableStatusWebhook(id: string): Promise<string | null> {
    const rows = await run<{ reason: string | null }>(
      this.pool,
      `UPDATE send_api_keys k SET webhook_disabled_at = NULL, webhook_disabled_reason = NULL, webhook_failing_since = NULL
         FROM (SELECT id, webhook_disabled_reason FROM send_api_keys WHERE id = $1 FOR UPDATE) old
        WHERE k.id = old.id AND k.webhook_disabled_at IS NOT NULL
       RETURNING COALESCE(old.webhook_disabled_reason, 'disabled') AS reason`,
      [id]
    );
    return rows[0]?.reason ?? null;
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

  /** The account's own participant ids as recorded (empty when none are). */
  async findAccountParticipants(accountId: string): Promise<string[]> {
    const rows = await run<{ participant_ids: string[] }>(
      this.pool,
      'SELECT participant_ids FROM send_accounts WHERE account_id = $1',
      [accountId]
    );
    return rows[0]?.participant_ids ?? [];
  }

  /** Records the account's own participant ids (LID and/or phone JID), which the group-membership check reads. */
  async setAccountParticipants(accountId: string, participantIds: readonly string[]): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO send_accounts (account_id, participant_ids) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET participant_ids = EXCLUDED.participant_ids, updated_at = now()`,
      [accountId, participantIds]
    );
  }

  /**
   * Marks the account approved for live sending (ADR 0015). @returns false when it was approved already.
   */
  async approveAccount(accountId: string): Promise<boolean> {
    const rows = await run<{ was_approved: boolean }>(
      this.pool,
      `WITH before AS (SELECT approved_at IS NOT NULL AS was_approved FROM send_accounts WHERE account_id = $1)
       INSERT INTO send_accounts (account_id, approved_at) VALUES ($1, now())
       ON CONFLICT (account_id) DO UPDATE SET approved_at = COALESCE(send_accounts.approved_at, now())
       RETURNING COALESCE((SELECT was_approved FROM before), false) AS was_approved`,
      [accountId]
    );
    return rows[0]?.was_approved !== true;
  }

  /** Whether the lake knows the account: approved or listed before, or named by an API key. */
  async isKnownAccount(accountId: string): Promise<boolean> {
    const rows = await run<{ known: boolean }>(
      this.pool,
      `SELECT EXISTS (SELECT 1 FROM send_accounts WHERE account_id = $1)
           OR EXISTS (SELECT 1 FROM send_api_keys WHERE account_id = $1) AS known`,
      [accountId]
    );
    return rows[0]?.known === true;
  }

  /** Adds a test recipient (phone or group JID) of the account (idempotent). */
  async addTestRecipient(accountId: string, jid: string, note: string | null): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO send_test_recipients (account_id, jid, note) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [accountId, jid, note]
    );
  }

  /** Removes a test recipient. @returns 1 when one was removed, 0 when there was none. */
  async removeTestRecipient(accountId: string, jid: string): Promise<number> {
    const rows = await run(
      this.pool,
      `DELETE FROM send_test_recipients WHERE account_id = $1 AND jid = $2 RETURNING jid`,
      [accountId, jid]
    );
    return rows.length;
  }

  /** Test recipients of one account, oldest first. */
  async listTestRecipients(accountId: string): Promise<TestRecipientRecord[]> {
    const rows = await run<{ account_id: string; jid: string; note: string | null; created_at: Date }>(
      this.pool,
      `SELECT * FROM send_test_recipients WHERE account_id = $1 ORDER BY created_at`,
      [accountId]
    );
    return rows.map((row) => ({ accountId: row.account_id, jid: row.jid, note: row.note, createdAt: row.created_at }));
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
   * Whether `accountId` may send to `recipient` now, by the allow-list the accept statement applies
   * (`send-recipient-allow-list.ts`, architecture.md §12): the same SQL, asked without committing anything.
   * For callers that only ask (the send demo waits for its groups with it).
   *
   * @throws DatabaseUnavailableError/DatabaseBusyError when PostgreSQL cannot serve it.
   */
  async isRecipientAllowed(accountId: string, recipient: Recipient): Promise<boolean> {
    const rows = await run<{ is_allowed: boolean }>(
      this.pool,
      `SELECT ${recipientIsAllowedSql('req.is_group')} AS is_allowed
         FROM (SELECT $1::varchar AS account_id, $2::text AS to_jid, $3::boolean AS is_group) req
         ${recipientAllowListJoins({ accountId: 'req.account_id', toJid: 'req.to_jid', isGroup: 'req.is_group' })}`,
      [accountId, recipient.jid, recipient.kind === 'group']
    );
    return rows[0]?.is_allowed === true;
  }
}

function toApiKey(row: Record<string, unknown>): ApiKeyRecord {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    accountId: row['account_id'] as string,
    keyPrefix: row['key_prefix'] as string,
    webhookUrl: (row['webhook_url'] as string | null) ?? null,
    hasWebhookSecret: row['webhook_secret'] !== null && row['webhook_secret'] !== undefined,
    createdAt: row['created_at'] as Date,
    revokedAt: (row['revoked_at'] as Date | null) ?? null,
    dailyLimit: (row['daily_limit'] as number | null) ?? null,
    monthlyLimit: (row['monthly_limit'] as number | null) ?? null,
    environment: (row['environment'] as SendEnvironment | undefined) ?? 'live',
    isAccountApproved: row['is_account_approved'] === true,
  };
}
