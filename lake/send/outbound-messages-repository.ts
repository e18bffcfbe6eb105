import type pg from 'pg';
import { SEND_STATE_RANK, type SendCategory, type SendState } from '../../workflows/send-states.js';
import { queryRows } from '../pool.js';
import { parseJsonKeepingIntegers } from '../../common/exact-json-text.js';

/** A committed send intent (one `outbound_messages` row). */
export interface OutboundMessage {
  id: string;
  apiKeyId: string;
  accountId: string;
  requestHash: string;
  toJid: string;
  text: string | null;
  category: SendCategory;
  deliverBy: Date | null;
  metadata: Record<string, unknown> | null;
  state: SendState;
  reasonCode: string | null;
  waMessageId: string;
  workflowStartedAt: Date | null;
  createdAt: Date;
  /** Whether the message's API key has a status webhook (URL and secret; ADR 0011). */
  hasStatusWebhook: boolean;
  /** The template version `text` was rendered from (ADR 0015); null for free text. */
  template?: { id: string; name: string; version: number } | null;
}

/** One state reached by a message. */
export interface TransitionRecord {
  state: SendState;
  at: Date;
  reasonCode: string | null;
}

// A message row plus whether its key has a status webhook (both URL and sealed secret, ADR 0011).
const HAS_STATUS_WEBHOOK_SQL = (row: string): string =>
  `(SELECT k.webhook_url IS NOT NULL AND k.webhook_secret IS NOT NULL FROM send_api_keys k WHERE k.id = ${row}.api_key_id) AS has_status_webhook`;
// metadata is read as text and parsed here: pg's jsonb parser would round integers beyond 2^53 (ADR 0014).
const SELECT_MESSAGE = `SELECT m.*, m.metadata::text AS metadata_text, ${HAS_STATUS_WEBHOOK_SQL('m')},
  (SELECT t.name FROM send_templates t WHERE t.id = m.template_id) AS template_name FROM outbound_messages m`;

// SQL CASE that ranks a state column, from the one rank table in send-contracts.ts.
const RANK_SQL = (column: string): string =>
  `(CASE ${column} ${Object.entries(SEND_STATE_RANK)
    .map(([state, rank]) => `WHEN '${state}' THEN ${rank}`)
    .join(' ')} END)`;

function toMessage(row: Record<string, unknown>): OutboundMessage {
  return {
    id: row['id'] as string,
    apiKeyId: row['api_key_id'] as string,
    accountId: row['account_id'] as string,
    requestHash: (row['request_hash'] as string).trim(),
    toJid: row['to_jid'] as string,
    text: (row['text'] as string | null) ?? null,
    category: row['category'] as SendCategory,
    deliverBy: (row['deliver_by'] as Date | null) ?? null,
    metadata:
      typeof row['metadata_text'] === 'string'
        ? (parseJsonKeepingIntegers(row['metadata_text']) as Record<string, unknown> | null)
        : ((row['metadata'] as Record<string, unknown> | null) ?? null),
    state: row['state'] as SendState,
    reasonCode: (row['reason_code'] as string | null) ?? null,
    waMessageId: row['wa_message_id'] as string,
    workflowStartedAt: (row['workflow_started_at'] as Date | null) ?? null,
    createdAt: row['created_at'] as Date,
    hasStatusWebhook: row['has_status_webhook'] === true,
    template:
      row['template_id'] == null
        ? null
        : {
            id: row['template_id'] as string,
            name: row['template_name'] as string,
            version: row['template_version'] as number,
          },
  };
}

/**
 * The `outbound_messages` / `outbound_message_transitions` tables (architecture.md §12, ADR 0009): the intent
 * committed before 202 (inserted by `send-intent-statement.ts`), idempotency lookups, the sweeper's "not yet started" list and monotonic state
 * updates reported by the `sendMessage` workflow. Methods throw DatabaseUnavailableError /
 * DatabaseBusyError when PostgreSQL cannot serve them.
 */
export class OutboundMessagesRepository {
  constructor(private readonly pool: pg.Pool) {}

  private run(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
    return queryRows<Record<string, unknown>>(this.pool, sql, params);
  }

  /** The message a key already created with this `Idempotency-Key`, or null. */
  async findByIdempotencyKey(apiKeyId: string, idempotencyKey: string): Promise<OutboundMessage | null> {
    const rows = await this.run(`${SELECT_MESSAGE} WHERE m.api_key_id = $1 AND m.idempotency_key = $2`, [
      apiKeyId,
      idempotencyKey,
    ]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  /** One message and every transition, oldest first; null when unknown. */
  async get(id: string): Promise<{ message: OutboundMessage; transitions: TransitionRecord[] } | null> {
    const rows = await this.run(`${SELECT_MESSAGE} WHERE m.id = $1`, [id]);
    if (!rows[0]) return null;
    const transitions = await this.run(
      `SELECT state, at, reason_code FROM outbound_message_transitions WHERE message_id = $1 ORDER BY at, ${RANK_SQL('state')}`,
      [id]
    );
    return {
      message: toMessage(rows[0]),
      transitions: transitions.map((row) => ({
        state: row['state'] as SendState,
        at: row['at'] as Date,
        reasonCode: (row['reason_code'] as string | null) ?? null,
      })),
    };
  }

  /** Records that `send-<id>` exists in Temporal (started now or already before). */
  async markWorkflowStarted(id: string): Promise<void> {
    await this.run(
      `UPDATE outbound_messages SET workflow_started_at = now() WHERE id = $1 AND workflow_started_at IS NULL`,
      [id]
    );
  }

  /** Oldest messages whose workflow was never confirmed started, created before `olderThan`. */
  async listUnstarted(limit: number, olderThan: Date): Promise<OutboundMessage[]> {
    const rows = await this.run(
      `${SELECT_MESSAGE} WHERE m.workflow_started_at IS NULL AND m.created_at <= $2 ORDER BY m.created_at LIMIT $1`,
      [limit, olderThan]
    );
    return rows.map(toMessage);
  }

  /**
   * Records a state reached (idempotent per state) and moves the row's state forward only (monotonic,
   * architecture.md §12). @returns whether the row's state changed and, if so, when the message was accepted.
   */
  async recordTransition(
    id: string,
    state: SendState,
    at: Date,
    reasonCode: string | null
  ): Promise<{ isChanged: boolean; createdAt: Date | null }> {
    const rows = await this.run(
      `WITH transition AS (
         INSERT INTO outbound_message_transitions (message_id, state, at, reason_code)
         SELECT id, $2, $3, $4 FROM outbound_messages WHERE id = $1
         ON CONFLICT DO NOTHING
       )
       UPDATE outbound_messages SET state = $2, reason_code = COALESCE($4, reason_code), updated_at = now()
        WHERE id = $1 AND state NOT IN ('read', 'failed', 'expired')
          AND ${RANK_SQL('state')} < ${RANK_SQL('$2::varchar')}
        RETURNING created_at`,
      [id, state, at, reasonCode]
    );
    const createdAt = (rows[0]?.['created_at'] as Date | undefined) ?? null;
    return { isChanged: createdAt !== null, createdAt };
  }
}
