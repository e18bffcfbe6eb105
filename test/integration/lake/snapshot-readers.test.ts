import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPool, inTransaction } from '../../../lake/pool.js';
import { readAtSnapshotSideBySide, type SnapshotQuery } from '../../../lake/snapshot-readers.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { silentLogger } from '../../helpers/silent-logger.js';

const fresh = useFreshLake();
const pools: ReturnType<typeof createPool>[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

const openPool = (max: number): ReturnType<typeof createPool> => {
  const pool = createPool(fresh.url, { max, logger: silentLogger() });
  pools.push(pool);
  return pool;
};

// Each statement names its own backend, so the test sees which ran on a client of its own.
const query = (n: number): SnapshotQuery => ({
  sql: `SELECT $1::int AS n, count(*)::int AS rows, pg_backend_pid() AS pid FROM wa_side_by_side`,
  values: [n],
});
interface Counted {
  n: number;
  rows: number;
  pid: number;
}
const QUERIES = [query(1), query(2), query(3)] as const;
const readThree = (pool: ReturnType<typeof createPool>, client: pg.PoolClient, queries: readonly SnapshotQuery[]) =>
  readAtSnapshotSideBySide<[Counted, Counted, Counted]>(pool, client, [queries[0]!, queries[1]!, queries[2]!]);

describe('readAtSnapshotSideBySide', () => {
  it("reads the transaction's snapshot on clients of their own, not a row committed after it", async () => {
    await fresh.lake.pool.query('CREATE TABLE IF NOT EXISTS wa_side_by_side (n int); TRUNCATE wa_side_by_side');
    await fresh.lake.pool.query('INSERT INTO wa_side_by_side VALUES (1), (2)');
    const pool = openPool(4);
    const results = await inTransaction(
      pool,
      async (client) => {
        await client.query('SELECT count(*) FROM wa_side_by_side');
        await fresh.lake.pool.query('INSERT INTO wa_side_by_side VALUES (3)');
        const own = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const rows = await readThree(pool, client, QUERIES);
        return { ownPid: own.rows[0]?.pid, rows: rows.map((result) => result[0]) };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ'
    );
    expect(results.rows.map((row) => [row?.n, row?.rows])).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
    ]);
    const pids = new Set(results.rows.map((row) => row?.pid));
    expect(pids.size).toBe(3);
    expect(results.rows[0]?.pid).toBe(results.ownPid);
    expect((await fresh.lake.pool.query('SELECT count(*)::int AS n FROM wa_side_by_side')).rows[0]).toEqual({ n: 3 });
  });

  it('runs every statement on the transaction’s client when the pool has no client free, with the same rows', async () => {
    await fresh.lake.pool.query('CREATE TABLE IF NOT EXISTS wa_side_by_side (n int); TRUNCATE wa_side_by_side');
    await fresh.lake.pool.query('INSERT INTO wa_side_by_side VALUES (1)');
    const pool = openPool(1);
    const rows = await inTransaction(
      pool,
      async (client) => readThree(pool, client, QUERIES),
      'BEGIN ISOLATION LEVEL REPEATABLE READ'
    );
    expect(rows.map((result) => [result[0]?.n, result[0]?.rows])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    expect(new Set(rows.map((result) => result[0]?.pid)).size).toBe(1);
  });

  it('throws the failing statement’s error and gives every side client back', async () => {
    const pool = openPool(4);
    const failing = [QUERIES[0], { sql: 'SELECT 1/0', values: [] }, QUERIES[2]];
    await fresh.lake.pool.query('CREATE TABLE IF NOT EXISTS wa_side_by_side (n int)');
    await expect(
      inTransaction(pool, async (client) => readThree(pool, client, failing), 'BEGIN ISOLATION LEVEL REPEATABLE READ')
    ).rejects.toThrow(/division by zero/);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });
});
