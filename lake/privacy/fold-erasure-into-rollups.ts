import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { catchUpEngagementRollup } from '../engagement/rollup-catch-up.js';

const RETRY_MS = 200;
const MAX_TRIES = 150;

/**
 * Folds an erasure's changes into the engagement rollup tables (ADR 0031): the erasure rewrote the records, reactions
 * and payloads that name the member, which marked their days; a catch-up recounts those days from the pseudonymized
 * rows, so no rollup row keeps the member's JID once the erasure has run. A catch-up already running when the erasure
 * committed may have a snapshot from before it and leave those marks: this one waits for it and runs again.
 *
 * @returns the names of the rollup tables, for the VACUUM that removes the replaced rows' old versions.
 * @throws pg.DatabaseError when a catch-up fails; Error when another catch-up held the lock for 30 s.
 */
export async function foldErasureIntoRollups(pool: pg.Pool): Promise<string[]> {
  for (let tries = 0; ; tries += 1) {
    if ((await catchUpEngagementRollup(pool)) >= 0) break;
    if (tries >= MAX_TRIES) throw new Error('another engagement rollup catch-up held its lock for 30 s');
    await sleep(RETRY_MS);
  }
  const tables = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name LIKE 'engagement\\_rollup\\_%'
      ORDER BY 1`
  );
  return tables.rows.map((row) => row.name);
}
