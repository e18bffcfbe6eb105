import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { erasureHash } from './erasure-tombstones.js';

/**
 * An erasure that has not reached every store yet (ADR 0017): keyed hashes of the member's JID user parts (digits),
 * so a rerun recognises the member's other identifiers after the lake's aliases are gone. The hash is the
 * tombstones' HMAC under `ERASURE_KEY` (ADR 0027), never stored in the database: phone numbers are a small space,
 * and a salt kept beside its hashes did not stop anyone trying them all.
 */
export interface PendingErasure {
  id: string;
  /** True when `user` (JID digits, e.g. a LID's or a phone number's) is one of the member's. */
  has(user: string): boolean;
}

interface PendingRow {
  id: string;
  /** Null for keyed rows; the salt of a row an earlier version wrote (salted SHA-256). */
  salt: string | null;
  keyed: boolean;
  user_hashes: string[];
}

const saltedHash = (salt: string, user: string): string => createHash('sha256').update(`${salt}:${user}`).digest('hex');

const hashOf = (row: PendingRow, key: string, user: string): string =>
  row.keyed || row.salt === null ? erasureHash(key, 'user', user) : saltedHash(row.salt, user);

/**
 * The pending erasures that know one of `users` (the JID digits the operator named). Few rows (one per member whose
 * erasure is incomplete); rows an earlier version salted are still recognised, and rewritten keyed when kept.
 */
export async function findPendingErasures(
  pool: pg.Pool,
  key: string,
  users: readonly string[]
): Promise<PendingErasure[]> {
  const { rows } = await pool.query<PendingRow>(`SELECT id, salt, keyed, user_hashes FROM whatsapp_pending_erasures`);
  return rows
    .map((row) => ({ row, hashes: new Set(row.user_hashes) }))
    .filter(({ row, hashes }) => users.some((user) => hashes.has(hashOf(row, key, user))))
    .map(({ row, hashes }) => ({ id: row.id, has: (user: string) => hashes.has(hashOf(row, key, user)) }));
}

/**
 * Keeps an incomplete erasure's identifiers, keyed: replaces the pending erasures found by one row holding the keyed
 * hashes of `users` (every identifier this run knows of the member, those the found rows recognised included), or
 * starts a new one.
 * @returns the id of the pending erasure.
 */
export async function keepPendingErasure(
  pool: pg.Pool,
  key: string,
  found: readonly PendingErasure[],
  users: readonly string[]
): Promise<string> {
  const [kept, ...merged] = found;
  const hashes = users.map((user) => erasureHash(key, 'user', user));
  if (kept === undefined) {
    const id = randomUUID();
    await pool.query(
      `INSERT INTO whatsapp_pending_erasures (id, salt, keyed, user_hashes) VALUES ($1, NULL, true, $2)`,
      [id, hashes]
    );
    return id;
  }
  // A keyed row keeps its other hashes; a salted one is rewritten keyed with what this run knows.
  await pool.query(
    `UPDATE whatsapp_pending_erasures
        SET user_hashes = ARRAY(SELECT DISTINCT unnest(CASE WHEN keyed THEN user_hashes ELSE '{}' END || $2::text[])),
            salt = NULL, keyed = true, updated_at = now()
      WHERE id = $1`,
    [kept.id, hashes]
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
