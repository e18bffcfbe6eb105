import type pg from 'pg';
import type { SendCategory, SendState } from '../../workflows/send-states.js';
import { stringifyJsonExactly } from '../../common/exact-json-text.js';
import { quotaCtes } from './send-quota-sql.js';
import { recipientAllowListJoins, recipientIsAllowedSql } from './send-recipient-allow-list.js';

/**
 * One send request as the accept statement checks and (maybe) commits it. The API key was resolved
 * from its hash before (possibly from a cache); the statement re-checks that it is not revoked.
 */
export interface SendIntentCandidate {
  /** The id the message gets if it is inserted now (UUID). */
  id: string;
  apiKeyId: string;
  idempotencyKey: string;
  /** Hex SHA-256 of the canonical request (`hashSendRequest`). */
  requestHash: string;
  /** Normalized recipient JID, or null when `to` is not a recipient (never inserted then). */
  toJid: string | null;
  isGroup: boolean;
  /** The text to send: the request's, or its template rendered once now (ADR 0015). */
  text: string;
  /** The template and version `text` was rendered from; null for free text. */
  templateId: string | null;
  templateVersion: number | null;
  category: SendCategory;
  deliverBy: Date | null;
  metadata: Record<string, unknown> | null;
  waMessageId: string;
  /**
   * False when the request must not be committed whatever the lookups say (deadline passed, invalid
   * recipient): the statement then only answers "key active?" and "already used?".
   */
  isInsertable: boolean;
}

/** What the statement found and did for one candidate, in the route's order of checks. */
export type SendIntentOutcome =
  | { kind: 'key-revoked' }
  | { kind: 'existing'; id: string; requestHash: string; state: SendState; createdAt: Date }
  | { kind: 'not-insertable' }
  | { kind: 'not-allowed'; accountId: string }
  /** A test key's recipient is not one of the account's test recipients (ADR 0015). */
  | { kind: 'not-a-test-recipient' }
  /** A live key of an account not approved for production (ADR 0015). */
  | { kind: 'account-not-approved'; accountId: string }
  /** The key's daily or monthly quota (ADR 0015) has no slot left for this request. */
  | { kind: 'over-quota'; usage: QuotaUsage }
  /** `hasStatusWebhook`: the key has a webhook URL and a sealed secret (ADR 0011), so the workflow reports states. */
  | { kind: 'inserted'; accountId: string; createdAt: Date; hasStatusWebhook: boolean; usage: QuotaUsage | null }
  /**
   * Another request with the same key committed the same `Idempotency-Key` concurrently: look it up.
   * `wasCounted`: this request took a quota slot, which must be given back.
   */
  | { kind: 'raced'; wasCounted: boolean };

/** A limited key's quota after the statement (ADR 0015): limits (null = none) and what is used. */
export interface QuotaUsage {
  dailyLimit: number | null;
  monthlyLimit: number | null;
  dayUsed: number;
  monthUsed: number;
}

// One statement for any batch size (prepared once per connection), one commit: the key's revocation,
// the idempotency lookup, the recipient allow-list (`send-recipient-allow-list.ts`, architecture.md §12
// "Validation before accepting") and the insert of the intent with its `queued` transition.
// Every lookup is a `LATERAL (… LIMIT 1)`, which the planner cannot flatten into a join: it stays an
// index probe per request whatever it estimates for the JSON rows (as a plain join, the generic plan
// scanned all of `outbound_messages`, so each request cost more as the table grew). Rows are inserted
// in (key, idempotency key) order, so two batches that share an idempotency key lock its index entry in
// the same order. Each request's Idempotency-Key claim (`idempotency-claims.ts`, ADR 0030) is deleted in the
// same transaction, whatever the outcome: once the decision is committed no claim is left to answer 409.
const STATEMENT_NAME = 'wa_accept_send_intents';
const STATEMENT_SQL = `
  WITH req AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS r(o int, i uuid, k uuid, ik text, h text, t text, g boolean, x text, c text, d timestamptz, m jsonb,
           w text, n boolean, tp uuid, tv int)
  ), checked AS (
    SELECT req.*, ak.account_id, ak.id IS NOT NULL AS is_key_active, COALESCE(ak.has_webhook, false) AS has_webhook,
           ak.daily_limit AS dl, ak.monthly_limit AS ml,
           COALESCE(ak.daily_limit IS NOT NULL OR ak.monthly_limit IS NOT NULL, false) AS has_quota,
           e.id AS existing_id, e.request_hash AS existing_hash, e.state AS existing_state,
           e.created_at AS existing_created_at,
           ak.environment, COALESCE(env_acct.ok, false) AS is_account_approved,
           CASE
             WHEN ak.id IS NULL OR e.id IS NOT NULL OR NOT req.n OR req.t IS NULL THEN false
             WHEN ak.environment = 'test' THEN env_test.ok IS NOT NULL
             WHEN NOT COALESCE(env_acct.ok, false) THEN false
             ELSE ${recipientIsAllowedSql('req.g')}
           END AS is_allowed
      FROM req
      LEFT JOIN LATERAL (SELECT id, account_id, webhook_url IS NOT NULL AND webhook_secret IS NOT NULL AS has_webhook,
                                daily_limit, monthly_limit, environment
                           FROM send_api_keys WHERE id = req.k AND revoked_at IS NULL LIMIT 1) ak ON true
      LEFT JOIN LATERAL (SELECT id, request_hash, state, created_at FROM outbound_messages
                          WHERE api_key_id = req.k AND idempotency_key = req.ik LIMIT 1) e ON true
      ${recipientAllowListJoins({ accountId: 'ak.account_id', toJid: 'req.t', isGroup: 'req.g' })}
      LEFT JOIN LATERAL (SELECT approved_at IS NOT NULL AS ok FROM send_accounts
                          WHERE account_id = ak.account_id LIMIT 1) env_acct ON true
      LEFT JOIN LATERAL (SELECT true AS ok FROM send_test_recipients
                          WHERE ak.environment = 'test' AND account_id = ak.account_id AND jid = req.t LIMIT 1) env_test ON true
  ), ${quotaCtes()}, decided AS (
    SELECT c.*, q.day_used, q.month_used,
           c.is_allowed AND (NOT c.has_quota OR r.rn <= COALESCE(q.granted, 0)) AS is_accepted
      FROM checked c LEFT JOIN quota_ranked r ON r.o = c.o LEFT JOIN quota_counted q ON q.k = c.k
  ), inserted AS (
    INSERT INTO outbound_messages (id, api_key_id, account_id, idempotency_key, request_hash, to_jid, text,
                                   category, deliver_by, metadata, wa_message_id, template_id, template_version)
    SELECT i, k, account_id, ik, h, t, x, c, d, m, w, tp, tv FROM decided WHERE is_accepted ORDER BY k, ik
    ON CONFLICT (api_key_id, idempotency_key) DO NOTHING
    RETURNING id, created_at
  ), transition AS (
    INSERT INTO outbound_message_transitions (message_id, state, at)
    SELECT id, 'queued', created_at FROM inserted
  ), released AS (
    DELETE FROM send_idempotency_claims cl USING req
     WHERE cl.api_key_id = req.k AND cl.idempotency_key = req.ik AND cl.token = req.i
  )
  SELECT c.o, c.account_id, c.is_key_active, c.environment, c.is_account_approved, c.existing_id, c.existing_hash, c.existing_state,
         c.existing_created_at, c.is_allowed,
         c.n, c.has_webhook, ins.created_at, c.has_quota, c.is_accepted, c.dl, c.ml, c.day_used, c.month_used
    FROM decided c LEFT JOIN inserted ins ON ins.id = c.i`;

interface ResultRow {
  o: number;
  account_id: string | null;
  is_key_active: boolean;
  environment: 'test' | 'live' | null;
  is_account_approved: boolean;
  existing_id: string | null;
  existing_hash: string | null;
  existing_state: SendState | null;
  existing_created_at: Date | null;
  is_allowed: boolean;
  n: boolean;
  has_webhook: boolean;
  created_at: Date | null;
  has_quota: boolean;
  is_accepted: boolean;
  dl: number | null;
  ml: number | null;
  day_used: number | null;
  month_used: number | null;
}

function toUsage(row: ResultRow): QuotaUsage | null {
  if (!row.has_quota) return null;
  return { dailyLimit: row.dl, monthlyLimit: row.ml, dayUsed: row.day_used ?? 0, monthUsed: row.month_used ?? 0 };
}

function toOutcome(row: ResultRow): SendIntentOutcome {
  if (!row.is_key_active) return { kind: 'key-revoked' };
  if (row.existing_id !== null) {
    return {
      kind: 'existing',
      id: row.existing_id,
      requestHash: (row.existing_hash ?? '').trim(),
      state: row.existing_state ?? 'queued',
      createdAt: row.existing_created_at ?? new Date(0),
    };
  }
  if (!row.n) return { kind: 'not-insertable' };
  const accountId = row.account_id ?? '';
  if (!row.is_allowed) {
    if (row.environment === 'test') return { kind: 'not-a-test-recipient' };
    if (!row.is_account_approved) return { kind: 'account-not-approved', accountId };
    return { kind: 'not-allowed', accountId };
  }
  const usage = toUsage(row);
  if (!row.is_accepted)
    return { kind: 'over-quota', usage: usage ?? { dailyLimit: 0, monthlyLimit: 0, dayUsed: 0, monthUsed: 0 } };
  return row.created_at
    ? { kind: 'inserted', accountId, createdAt: row.created_at, hasStatusWebhook: row.has_webhook, usage }
    : { kind: 'raced', wasCounted: row.has_quota };
}

/**
 * Encodes one candidate as a member of the statement's JSON array (without its ordinal, which
 * {@link acceptSendIntents} adds). Done per request, so its size can bound a batch.
 *
 * @throws RangeError when `deliverBy` is an invalid Date.
 */
export function encodeSendIntent(c: SendIntentCandidate): string {
  // Metadata may hold integers beyond 2^53 as bigints: written as their digits, jsonb keeps them exactly.
  return stringifyJsonExactly({
    i: c.id,
    k: c.apiKeyId,
    ik: c.idempotencyKey,
    h: c.requestHash,
    t: c.toJid,
    g: c.isGroup,
    x: c.text,
    c: c.category,
    d: c.deliverBy?.toISOString() ?? null,
    m: c.metadata,
    w: c.waMessageId,
    n: c.isInsertable,
    tp: c.templateId,
    tv: c.templateVersion,
  });
}

/**
 * Runs the accept statement for candidates encoded by {@link encodeSendIntent} on the pool (autocommit:
 * every insert is committed when this resolves). Check order per candidate, as the route answers: key
 * revoked → idempotency key already used → not insertable → environment (a test key's recipient must be a
 * test recipient; a live key's account must be approved) → recipient not allowed (`send-recipient-allow-list.ts`) → over the key's quota (`send-quota-sql.ts`) → inserted (or raced by a concurrent twin). Source: architecture.md §12
 * "Validation before accepting", ADR 0009.
 *
 * @returns one outcome per candidate, same order.
 * @throws pg.DatabaseError (or a connection error) as `pg` reports it.
 */
export async function acceptSendIntents(pool: pg.Pool, encoded: readonly string[]): Promise<SendIntentOutcome[]> {
  const records = `[${encoded.map((member, o) => `{"o":${o},${member.slice(1)}`).join(',')}]`;
  const result = await pool.query<ResultRow>({ name: STATEMENT_NAME, text: STATEMENT_SQL, values: [records] });
  const outcomes = new Array<SendIntentOutcome>(encoded.length);
  for (const row of result.rows) outcomes[row.o] = toOutcome(row);
  return outcomes;
}
