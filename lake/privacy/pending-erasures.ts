import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';

/**
 * An erasure that has not reached every store yet (ADR 0017): its salted hashes of the member's JID user
 * parts (digits), so a rerun recognises the member's other identifiers after the lake's aliases are gone.
 */
export interface PendingErasure {
  id: string;
  /** True when `user` (JID digits, e.g. a LID's or a phone number's) is one of the member's. */
  has(user: string): boolean;
}

interface PendingRow {
  id: string;
  salt: string;
  user_hashes: string[];
}

const hashUser = (salt: string, user: string): string => createHash('sha256').update(`${salt}:${user}`).digest('hex');

/**
 * The pending erasures that know one of `users` (the JID digits the operator named). Few rows (one per member whose
 * erasure is incomplete), so each is checked here with its own salt.
 */
export async function findPendingErasures(pool: pg.Pool, users: readonly string[]): Promise<PendingErasure[]> {
  const { rows } = await pool.query<PendingRow>(`SELECT id, salt, user_hashes FROM whatsapp_pending_erasures`);
  return rows
    .map((row) => ({ id: row.id, hashes: new Set(row.user_hashes), salt: row.salt }))
    .filter((row) => users.some((user) => row.hashes.has(hashUser(row.salt, user))))
    .map((row) => ({ id: row.id, has: (user: string) => row.hashes.has(hashUser(row.salt, user)) }));
}

/**
 * Keeps an incomplete erasure's identifiers, hashed: adds `users` to the pending erasures found (one is enough;
 * the others are merged into it), or starts a new one with a new random salt.
 * @returns the id of the pending erasure.
 */
export async function keepPendingErasure(
  pool: pg.Pool,
  found: readonly PendingErasure[],
  users: readonly string[]
): Promise<string> {
  const [kept, ...merged] = found;
  if (kept === undefined) {
    const id = randomUUID();
    const salt = randomBytes(16).toString('hex');
    await pool.query(`INSERT INTO whatsapp_pending_erasures (id, salt, user_hashes) VALUES ($1, $2, $3)`, [
      id,
      salt,
      users.map((user) => hashUser(salt, user)),
    ]);
    return id;
  }
  const { rows } = await pool.query<PendingRow>(`SELECT salt FROM whatsapp_pending_erasures WHERE id = $1`, [kept.id]);
  const salt = rows[0]?.salt ?? '';
  await pool.query(
    `UPDATE whatsapp_pending_erasures
        SET user_hashes = ARRAY(SELECT DISTINCT unnest(user_hashes || $2::text[])), updated_at = now()
      WHERE id = $1`,
    [kept.id, users.map((user) => hashUser(salt, user))]
  );
  await forgetPendingErasures(
    pool,
    merged.map((erasure) => erasure.id)
  );
  return kept.id;
}

/** Deletes pending erasures once a run reached every store: the hashes are no longer needed. */
export async function forgetPendingErasures(pool: pg.Pool, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await pool.query(`DELETE FROM whatsapp_pending_erasures WHERE id = ANY($1::uuid[])`, [ids]);
}
