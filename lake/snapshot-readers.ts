import type pg from 'pg';

/** One read statement and its parameters. */
export interface SnapshotQuery {
  sql: string;
  values: unknown[];
}

// What `pg_export_snapshot()` returns (for example `00000003-0000001B-1`); SET TRANSACTION SNAPSHOT takes a literal.
const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+(-[0-9]+)?$/i;

/**
 * Whether `pool` hands out a client without waiting: an idle one, or room for a new one, and nobody queued. A
 * reader that already holds a client takes another only then, so readers never wait on each other's clients.
 */
function hasFreeClient(pool: pg.Pool): boolean {
  const max = pool.options.max ?? 10;
  return pool.waitingCount === 0 && (pool.idleCount > 0 || pool.totalCount < max);
}

async function readOnHelper<T extends pg.QueryResultRow>(
  helper: pg.PoolClient,
  snapshotId: string,
  query: SnapshotQuery
): Promise<T[]> {
  let failure: Error | undefined;
  try {
    await helper.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await helper.query(`SET TRANSACTION SNAPSHOT '${snapshotId}'`);
    const rows = (await helper.query<T>(query.sql, query.values)).rows;
    await helper.query('COMMIT');
    return rows;
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // A client whose transaction failed is destroyed rather than returned mid-transaction.
    helper.release(failure);
  }
}

/**
 * Runs independent read statements of one repeatable-read transaction side by side, each reading the
 * transaction's own snapshot (`pg_export_snapshot()` / `SET TRANSACTION SNAPSHOT`), so their results are those the
 * statements give one after the other on `client`. A statement gets its own client of `pool` only while one is free
 * without waiting; the others run one after the other on `client`. Temporary tables of `client`'s session are not
 * visible to the side clients: the statements must not read them.
 *
 * @param client - a client of `pool` inside a `REPEATABLE READ` (or `SERIALIZABLE`) transaction.
 * @returns the rows of each statement, in the order given.
 * @throws pg.DatabaseError when a statement fails (the others are still awaited).
 */
export async function readAtSnapshotSideBySide<Rows extends readonly pg.QueryResultRow[]>(
  pool: pg.Pool,
  client: pg.PoolClient,
  queries: { readonly [K in keyof Rows]: SnapshotQuery }
): Promise<{ -readonly [K in keyof Rows]: Rows[K][] }> {
  return (await readEach(pool, client, queries)) as { -readonly [K in keyof Rows]: Rows[K][] };
}

type Row = pg.QueryResultRow;

async function readEach(pool: pg.Pool, client: pg.PoolClient, queries: readonly SnapshotQuery[]): Promise<Row[][]> {
  if (queries.length < 2)
    return Promise.all(queries.map(async (query) => (await client.query<Row>(query.sql, query.values)).rows));
  const exported = await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
  const snapshotId = exported.rows[0]?.id ?? '';
  if (!SNAPSHOT_ID.test(snapshotId)) throw new Error(`unexpected snapshot id from PostgreSQL: ${snapshotId}`);
  const helpers: (Promise<pg.PoolClient> | null)[] = queries.map((_, index) =>
    index > 0 && hasFreeClient(pool) ? pool.connect() : null
  );
  let chain: Promise<unknown> = Promise.resolve();
  const results = queries.map((query, index) => {
    const helper = helpers[index];
    if (helper) return helper.then((side) => readOnHelper<Row>(side, snapshotId, query));
    const rows = chain.then(async () => (await client.query<Row>(query.sql, query.values)).rows);
    chain = rows.catch(() => undefined);
    return rows;
  });
  const settled = await Promise.allSettled(results);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
}
