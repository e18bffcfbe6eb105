import type pg from 'pg';
import type { SendState } from '../../workflows/send-contracts.js';
import type { Accepted } from './demo-api-client.js';
import { DEMO_GROUPS } from './send-demo-plan.js';
import type { ObservedMessage } from './send-demo-summary.js';

// What demo-send counts from PostgreSQL: the send API's rows and the lake's raw table.

/** Lake rows of ACK event types in the demo groups (must stay 0). */
export async function countAckEventsInLake(pool: pg.Pool): Promise<number> {
  const result = await pool.query<{ count: string }>(
    `SELECT count(*) FROM whatsapp_event_logs
      WHERE type IN ('messages.update', 'message-receipt.update') AND chat_jid = ANY ($1)`,
    [DEMO_GROUPS]
  );
  return Number(result.rows[0]?.count ?? 0);
}

/** State of every message requested with the demo's key. */
export async function readStates(pool: pg.Pool, apiKeyId: string): Promise<Array<{ id: string; state: SendState }>> {
  const result = await pool.query<{ id: string; state: SendState }>(
    'SELECT id, state FROM outbound_messages WHERE api_key_id = $1',
    [apiKeyId]
  );
  return result.rows;
}

/** The accepted messages as PostgreSQL holds them, in request order, with their plan's expectation. */
export async function readMessages(
  pool: pg.Pool,
  apiKeyId: string,
  accepted: readonly Accepted[]
): Promise<Array<ObservedMessage & { lateAck: boolean }>> {
  const result = await pool.query<{
    id: string;
    to_jid: string;
    text: string | null;
    wa_message_id: string;
    state: SendState;
    reason_code: string | null;
  }>('SELECT id, to_jid, text, wa_message_id, state, reason_code FROM outbound_messages WHERE api_key_id = $1', [
    apiKeyId,
  ]);
  const rows = new Map(result.rows.map((row) => [row.id, row]));
  return accepted.flatMap(({ id, plan }) => {
    const row = rows.get(id);
    if (!row) return [];
    return [
      {
        id,
        label: plan.label,
        toJid: row.to_jid,
        text: row.text ?? '',
        waMessageId: row.wa_message_id,
        state: row.state,
        reasonCode: row.reason_code,
        expected: plan.expected,
        lateAck: plan.lateAck === true,
      },
    ];
  });
}
