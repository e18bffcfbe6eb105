import type pg from 'pg';

/**
 * Every JID the lake knows as the linked account's own (ADR 0014 decision 5): the `account_jid` and `account_lid`
 * the collector sent with its events, and the sending accounts' own participant ids (`send_accounts`). `forget`
 * refuses these without `--force`: erasing them removes the account's identity, which breaks group sends and the
 * account's own coverage.
 */
export async function findLinkedAccountJids(client: pg.ClientBase | pg.Pool): Promise<string[]> {
  const { rows } = await client.query<{ jid: string }>(
    `SELECT DISTINCT jid FROM (
       SELECT unnest(ARRAY[account_jid, account_lid]) AS jid FROM (
         SELECT DISTINCT account_jid, account_lid FROM whatsapp_event_logs
          WHERE account_jid IS NOT NULL OR account_lid IS NOT NULL) accounts
       UNION ALL SELECT unnest(participant_ids) FROM send_accounts) ids
      WHERE jid IS NOT NULL ORDER BY jid`
  );
  return rows.map((row) => row.jid);
}
