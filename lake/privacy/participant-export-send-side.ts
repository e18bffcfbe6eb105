import type pg from 'pg';
import { parseJsonKeepingIntegers } from '../../common/exact-json-text.js';
import type { ParticipantExport } from './participant-export.js';

/** Messages the send API sent to the person (text and metadata as stored), for `wa-lake export`. */
export async function readExportMessagesSent(
  client: pg.ClientBase,
  jids: string[]
): Promise<ParticipantExport['messagesSentToThem']> {
  const { rows } = await client.query<{
    id: string;
    account_id: string;
    created_at: Date;
    state: string;
    category: string;
    text: string | null;
    metadata: string | null;
  }>(
    `SELECT id, account_id, created_at, state, category, text, metadata::text AS metadata
       FROM outbound_messages WHERE to_jid = ANY($1) ORDER BY created_at, id`,
    [jids]
  );
  return rows.map((row) => ({
    id: row.id,
    accountId: row.account_id,
    createdAt: row.created_at.toISOString(),
    state: row.state,
    category: row.category,
    text: row.text,
    metadata: row.metadata === null ? null : parseJsonKeepingIntegers(row.metadata),
  }));
}

/** The person's opt-ins, for `wa-lake export`. */
export async function readExportOptIns(client: pg.ClientBase, jids: string[]): Promise<ParticipantExport['optIns']> {
  const { rows } = await client.query<{ account_id: string; phone_jid: string; note: string | null; created_at: Date }>(
    `SELECT account_id, phone_jid, note, created_at FROM send_opt_ins WHERE phone_jid = ANY($1)
      ORDER BY created_at, account_id`,
    [jids]
  );
  return rows.map((row) => ({
    accountId: row.account_id,
    phoneJid: row.phone_jid,
    note: row.note,
    createdAt: row.created_at.toISOString(),
  }));
}
