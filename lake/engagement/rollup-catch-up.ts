import type pg from 'pg';
import { inTransaction } from '../pool.js';

/**
 * Folds the rows that arrived since the last catch-up into the rollup tables (`engagement_rollup_catch_up()`,
 * ADR 0025 "A year's volume"), in a repeatable-read transaction of its own so the marks it deletes are exactly those
 * its recount includes. The views are exact without it; it keeps the part they recount when read small. Readers
 * call it before their own transaction.
 *
 * @returns the marks folded, or -1 when another catch-up was running (nothing to wait for: the views stay exact).
 * @throws pg.DatabaseError when the lake is not migrated or the statement fails.
 */
export async function catchUpEngagementRollup(pool: pg.Pool): Promise<number> {
  return inTransaction(
    pool,
    async (client) =>
      (await client.query<{ folded: number }>('SELECT engagement_rollup_catch_up() AS folded')).rows[0]?.folded ?? 0,
    'BEGIN ISOLATION LEVEL REPEATABLE READ'
  );
}
