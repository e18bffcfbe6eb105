import type pg from 'pg';

/** Advisory-lock class ids: one lock space per projection key kind. */
const GROUP_LOCK_CLASS = 1;
/** Exported for statements that take identity locks inline (`lake/events/lone-lid-participants.ts`). */
export const IDENTITY_LOCK_CLASS = 2;
const PHONE_LOCK_CLASS = 3;

/*
 * Lock protocol of the projections (architecture.md §9, ADR 0004). A transaction takes its locks in three
 * phases and never goes back to an earlier phase: phone JIDs, then groups, then the other identity
 * keys (LIDs and raw ids). Inside a phase it locks in ascending order of the 32-bit lock key itself:
 * two different keys can share a hash, and sorting by the text would then let two transactions take
 * the same pair of locks in opposite orders. With one global order no two transactions can wait on
 * each other in a cycle.
 *
 * Phone locks come first because only under them can a transaction learn which groups a change
 * of alias touches (a phone JID is written as a key only by a transaction holding its lock).
 */

/**
 * Locks phone-number JIDs (`…@s.whatsapp.net`) until the transaction ends: the first phase. Whoever
 * writes an alias of a phone, or a fact or snapshot keyed by it, holds this lock.
 */
export async function lockPhones(client: pg.ClientBase, phoneJids: readonly string[]): Promise<void> {
  await lockInOrder(client, [{ lockClass: PHONE_LOCK_CLASS, keys: phoneJids }]);
}

/**
 * Locks groups, then identity keys other than phone JIDs (LIDs, raw ids), until the transaction ends:
 * the second and third phases, in one round trip. The group locks keep two events of one group from
 * recomputing from each other's uncommitted state (READ COMMITTED sees the first commit); the identity
 * locks do the same for `whatsapp_participants` rows.
 */
export async function lockGroupsThenIdentities(
  client: pg.ClientBase,
  groupJids: readonly string[],
  identityKeys: readonly string[]
): Promise<void> {
  await lockInOrder(client, [
    { lockClass: GROUP_LOCK_CLASS, keys: groupJids },
    { lockClass: IDENTITY_LOCK_CLASS, keys: identityKeys },
  ]);
}

async function lockInOrder(
  client: pg.ClientBase,
  phases: ReadonlyArray<{ lockClass: number; keys: readonly string[] }>
): Promise<void> {
  const rows = phases.flatMap(({ lockClass, keys }, phase) =>
    [...new Set(keys)].map((key) => ({ phase, lockClass, key }))
  );
  if (rows.length === 0) return;
  // The sorted subquery fixes the order in which the outer SELECT calls the lock function.
  await client.query(
    `SELECT pg_advisory_xact_lock(lock_class, lock_key)
       FROM (SELECT DISTINCT phase, lock_class, hashtext(key) AS lock_key
               FROM unnest($1::int[], $2::int[], $3::text[]) AS wanted (phase, lock_class, key)
              ORDER BY phase, lock_key) AS sorted`,
    [rows.map((row) => row.phase), rows.map((row) => row.lockClass), rows.map((row) => row.key)]
  );
}
