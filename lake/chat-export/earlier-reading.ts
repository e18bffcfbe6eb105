import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DATE_ORDERS, type DateOrder } from './written-timestamp.js';

/** The SHA-256 (hex) of an export's text: which file a stored exported message was read from (ADR 0023). */
export function exportFileDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Messages of an earlier import of the same file, read in the other day/month order, that an import deleted. */
export interface ReplacedReading {
  dateOrder: DateOrder;
  messages: number;
}

/**
 * Deletes, in the importing transaction (`client`), the messages an earlier import of the same file (`fileDigest`)
 * stored with its dates read in another day/month order than `dateOrder` (ADR 0023): a date that exists both ways
 * (`01/02/2009`) makes another wall clock, so another event id, and both readings would count. A message whose
 * event id the new reading makes too (its date reads the same both ways) stays.
 *
 * @param keptEventIds - the event ids of every message of the new reading.
 * @returns what was deleted, per order; empty when nothing was.
 * @throws pg.DatabaseError when the statement fails.
 */
export async function deleteEarlierReading(
  client: pg.ClientBase,
  options: { groupJid: string; fileDigest: string; dateOrder: DateOrder; keptEventIds: readonly string[] }
): Promise<ReplacedReading[]> {
  const { rows } = await client.query<{ order: string; messages: number }>(
    `WITH gone AS (
       DELETE FROM whatsapp_event_logs
        WHERE type = 'export.message' AND chat_jid = $1
          AND payload->'export'->>'file_sha256' = $2 AND payload->'export'->>'date_order' <> $3
          AND event_id <> ALL($4::uuid[])
       RETURNING payload->'export'->>'date_order' AS date_order)
     SELECT date_order AS order, count(*)::int AS messages FROM gone GROUP BY 1 ORDER BY 1`,
    [options.groupJid, options.fileDigest, options.dateOrder, options.keptEventIds]
  );
  return rows.flatMap((row) => {
    const dateOrder = DATE_ORDERS.find((order) => order === row.order);
    return dateOrder === undefined ? [] : [{ dateOrder, messages: row.messages }];
  });
}
