import type pg from 'pg';
import { type ParticipantRef } from '../projections/participant-ref.js';
import { isLidUser, isPnUser } from '../../common/whatsapp-jid.js';

/** A phone JID whose owning LID changed when aliases were recorded (null: no owner, the phone is its own key). */
export interface PhoneOwnerChange {
  phoneJid: string;
  before: string | null;
  after: string | null;
}

/**
 * The owner rule (architecture.md §9, ADR 0004), in one place: a phone JID belongs to the LID of its alias with
 * the latest `last_seen_at` (event time), ties broken by the greater LID in byte order. Both inputs
 * only grow (`last_seen_at` is a maximum over events), so the owner is a function of the set of events.
 * `aliases` names the alias rows to read, `phonesSql` selects the phone JIDs to resolve.
 */
const ownersOf = (phonesSql: string, aliases = 'whatsapp_lid_aliases'): string => `
  SELECT DISTINCT ON (phone_jid) phone_jid, lid, last_seen_at FROM ${aliases}
   WHERE phone_jid IN (${phonesSql})
   ORDER BY phone_jid, last_seen_at DESC, lid COLLATE "C" DESC`;

/**
 * Resolves phone JIDs to the LIDs that own them (owner rule above). Phones without an alias are absent
 * from the result.
 *
 * @returns phone JID → LID.
 */
export async function findPhoneOwners(
  client: pg.ClientBase,
  phoneJids: readonly string[]
): Promise<Map<string, string>> {
  if (phoneJids.length === 0) return new Map();
  const { rows } = await client.query<{ phone_jid: string; lid: string }>(ownersOf('SELECT unnest($1::text[])'), [
    phoneJids,
  ]);
  return new Map(rows.map((row) => [row.phone_jid, row.lid]));
}

/**
 * Resolves the phone JIDs among `keys` to their owners, and finds every phone owned by the LIDs among
 * `keys` or by those owners (owner rule above): all the keys whose facts count for the same participants.
 *
 * @returns phone JID → owning LID.
 */
export async function findOwnerClosure(client: pg.ClientBase, keys: readonly string[]): Promise<Map<string, string>> {
  const phones = keys.filter(isPnUser);
  const lids = keys.filter(isLidUser);
  if (phones.length === 0 && lids.length === 0) return new Map();
  const { rows } = await client.query<{ phone_jid: string; lid: string }>(
    `WITH key_owners AS (${ownersOf('SELECT unnest($1::text[])')}),
          lids AS (SELECT unnest($2::text[]) AS lid UNION SELECT lid FROM key_owners),
          owned AS (${ownersOf('SELECT phone_jid FROM whatsapp_lid_aliases WHERE lid IN (SELECT lid FROM lids)')})
     SELECT phone_jid, lid FROM key_owners
     UNION
     SELECT phone_jid, lid FROM owned WHERE lid IN (SELECT lid FROM lids)`,
    [phones, lids]
  );
  return new Map(rows.map((row) => [row.phone_jid, row.lid]));
}

/**
 * SQL selecting `(lid, phone_jid)` for LIDs that own phones: the phone column of a LID's participant row
 * (architecture.md §9) is the most recently seen phone it owns (owner rule above), ties by the greater phone
 * JID. `lidsSql` selects the LIDs; a LID that owns no phone is absent (its phone column is null).
 */
export const lidPhonesSql = (lidsSql: string): string => `
  SELECT DISTINCT ON (lid) lid, phone_jid
    FROM (${ownersOf(`SELECT phone_jid FROM whatsapp_lid_aliases WHERE lid IN (${lidsSql})`)}) AS owners
   ORDER BY lid, last_seen_at DESC, phone_jid COLLATE "C" DESC`;

/** One LID↔phone pair as stated by one or more events, with the first and last event time stating it. */
export interface AliasStatement {
  lid: string;
  phoneJid: string;
  firstAt: Date;
  lastAt: Date;
}

/**
 * Records the LID↔phone aliases the references carry (`lid-mapping.update`, participant objects with
 * both ids, `participantAlt`), keeping per pair the first and last event time it was stated. Caller
 * holds the phone locks of every alias phone (`lockPhones`).
 *
 * @param at - event time of the statement.
 * @returns the phones whose owner changed: their facts now count for another participant (ADR 0004).
 */
export async function recordAliases(
  client: pg.ClientBase,
  refs: readonly ParticipantRef[],
  at: Date
): Promise<PhoneOwnerChange[]> {
  const { changes } = await recordAliasStatements(
    client,
    refs.flatMap((ref) =>
      ref.lid && ref.phoneJid ? [{ lid: ref.lid, phoneJid: ref.phoneJid, firstAt: at, lastAt: at }] : []
    )
  );
  return changes;
}

/**
 * {@link recordAliases} for many events at once (the batch of messages): one
 * set-based statement, each pair with its own first and last event time. Caller holds the phone locks.
 *
 * @returns `changes`: the phones whose owner changed; `writtenLids`: the LIDs whose alias rows this
 *   statement inserted or widened (only their participant rows can have changed).
 */
export async function recordAliasStatements(
  client: pg.ClientBase,
  pairs: readonly AliasStatement[]
): Promise<{ changes: PhoneOwnerChange[]; writtenLids: string[] }> {
  if (pairs.length === 0) return { changes: [], writtenLids: [] };
  // One statement: CTEs read the rows as they were before it, so `merged` overlays the upserted rows
  // on the old ones to get the owners after it.
  const { rows } = await client.query<{
    kind: 'owner' | 'written';
    phone_jid: string;
    before: string | null;
    after: string | null;
  }>(
    `WITH incoming AS (SELECT lid, phone_jid, min(first_at) AS first_at, max(last_at) AS last_at
                         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[])
                           AS pairs (lid, phone_jid, first_at, last_at)
                        GROUP BY lid, phone_jid),
          before AS (${ownersOf('SELECT phone_jid FROM incoming')}),
          upserted AS (
            INSERT INTO whatsapp_lid_aliases (lid, phone_jid, first_seen_at, last_seen_at)
            SELECT lid, phone_jid, first_at, last_at FROM incoming
            ON CONFLICT (lid, phone_jid) DO UPDATE
              SET first_seen_at = LEAST(whatsapp_lid_aliases.first_seen_at, EXCLUDED.first_seen_at),
                  last_seen_at = GREATEST(whatsapp_lid_aliases.last_seen_at, EXCLUDED.last_seen_at)
              WHERE whatsapp_lid_aliases.first_seen_at > EXCLUDED.first_seen_at
                 OR whatsapp_lid_aliases.last_seen_at < EXCLUDED.last_seen_at
            RETURNING lid, phone_jid, last_seen_at),
          merged AS (
            SELECT lid, phone_jid, last_seen_at FROM whatsapp_lid_aliases
             WHERE phone_jid IN (SELECT phone_jid FROM incoming)
               AND (lid, phone_jid) NOT IN (SELECT lid, phone_jid FROM upserted)
            UNION ALL SELECT lid, phone_jid, last_seen_at FROM upserted),
          after AS (${ownersOf('SELECT phone_jid FROM incoming', 'merged')})
     SELECT 'owner' AS kind, phones.phone_jid, before.lid AS before, after.lid AS after
       FROM (SELECT DISTINCT phone_jid FROM incoming) AS phones
       LEFT JOIN before USING (phone_jid) LEFT JOIN after USING (phone_jid)
      WHERE before.lid IS DISTINCT FROM after.lid
     UNION ALL
     SELECT 'written', phone_jid, lid, NULL FROM upserted
      ORDER BY kind, phone_jid`,
    [
      pairs.map((pair) => pair.lid),
      pairs.map((pair) => pair.phoneJid),
      pairs.map((pair) => pair.firstAt),
      pairs.map((pair) => pair.lastAt),
    ]
  );
  return {
    changes: rows.flatMap((row) =>
      row.kind === 'owner' ? [{ phoneJid: row.phone_jid, before: row.before, after: row.after }] : []
    ),
    writtenLids: [...new Set(rows.flatMap((row) => (row.kind === 'written' && row.before ? [row.before] : [])))],
  };
}

/**
 * Recomputes the `whatsapp_participants` rows of the given keys from the alias table (architecture.md §9, ADR 0004,
 * ADR 0004): a LID gets a row whose `phone_jid` is the most recently seen phone it owns (ties by the
 * greater phone JID), or null; a phone JID owned by a LID has no row of its own (it was merged into
 * that LID), an unowned one keeps `(phone, null, phone)`; any other key gets `(key, null, null)`. A LID
 * never lands in a phone column. Caller holds the phone locks of the phone keys and the identity
 * locks of the others.
 *
 * @throws pg.DatabaseError when a key does not fit the columns (varchar(255)): the projection fails.
 */
export async function recomputeParticipants(client: pg.ClientBase, keys: readonly string[]): Promise<void> {
  const unique = [...new Set(keys)];
  if (unique.length === 0) return;
  // Three disjoint sets of ids (by JID suffix), so no row is written twice by the one statement.
  await client.query(
    `WITH owners AS MATERIALIZED (${ownersOf('SELECT phone_jid FROM whatsapp_lid_aliases WHERE lid = ANY($1::text[])')}),
          latest AS (SELECT DISTINCT ON (lid) lid, phone_jid FROM owners
                      ORDER BY lid, last_seen_at DESC, phone_jid COLLATE "C" DESC),
          lid_rows AS (
            INSERT INTO whatsapp_participants (id, lid, phone_jid)
            SELECT ids.id, ids.id, latest.phone_jid FROM unnest($1::text[]) AS ids (id) LEFT JOIN latest ON latest.lid = ids.id
            ON CONFLICT (id) DO UPDATE SET phone_jid = EXCLUDED.phone_jid, updated_at = now()
              WHERE whatsapp_participants.phone_jid IS DISTINCT FROM EXCLUDED.phone_jid),
          merged_phones AS (
            DELETE FROM whatsapp_participants
             WHERE id = ANY($2::text[]) AND EXISTS (SELECT 1 FROM whatsapp_lid_aliases WHERE phone_jid = whatsapp_participants.id)),
          phone_rows AS (
            INSERT INTO whatsapp_participants (id, lid, phone_jid)
            SELECT phone, NULL, phone FROM unnest($2::text[]) AS phones (phone)
             WHERE NOT EXISTS (SELECT 1 FROM whatsapp_lid_aliases WHERE phone_jid = phone)
            ON CONFLICT (id) DO NOTHING)
     INSERT INTO whatsapp_participants (id, lid, phone_jid) SELECT key, NULL, NULL FROM unnest($3::text[]) AS keys (key)
     ON CONFLICT (id) DO NOTHING`,
    [unique.filter(isLidUser), unique.filter(isPnUser), unique.filter((key) => !isLidUser(key) && !isPnUser(key))]
  );
}
