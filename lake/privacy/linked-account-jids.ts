import type pg from 'pg';

/**
 * Every JID the lake knows as the linked account's own (ADR 0014 decision 5): the `account_jid` and `account_lid`
 * the collector sent with its events, the sending accounts' own participant ids (`send_accounts`), and the author
 * of any group message the account wrote itself (`key.fromMe`: its `key.participant`/`participantAlt`, or the item's
 * `participant`), which a replayed capture holds without any `account_jid`. `forget` refuses these without
 * `--force`: erasing them removes the account's identity, which breaks group sends and the account's own coverage.
 */
export async function findLinkedAccountJids(client: pg.ClientBase | pg.Pool): Promise<string[]> {
  // A full read of the message events' keys: `forget` runs rarely, and must not miss an account only a replay named.
  const { rows } = await client.query<{ jid: string }>(
    `SELECT DISTINCT jid FROM (
       SELECT unnest(ARRAY[account_jid, account_lid]) AS jid FROM (
         SELECT DISTINCT account_jid, account_lid FROM whatsapp_event_logs
          WHERE account_jid IS NOT NULL OR account_lid IS NOT NULL) accounts
       UNION ALL SELECT unnest(participant_ids) FROM send_accounts
       UNION ALL
       SELECT unnest(ARRAY[payload->'key'->>'participant', payload->'key'->>'participantAlt', payload->>'participant'])
         FROM whatsapp_event_logs
        WHERE type IN ('messages.upsert', 'messages.update', 'messages.reaction')
          AND payload->'key'->>'fromMe' = 'true' AND chat_jid LIKE '%@g.us') ids
      WHERE jid IS NOT NULL AND jid <> '' ORDER BY jid`
  );
  return rows.map((row) => row.jid);
}
