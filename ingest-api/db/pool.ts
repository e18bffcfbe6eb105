import pg from 'pg';
import type { Logger } from '../../common/logger.js';

/** How long a request waits for a connection before the API answers 503 (ms). */
export const CONNECTION_TIMEOUT_MS = 5_000;

/**
 * Creates the one `pg.Pool` of a process, with `'error'` listeners on the pool and on every client so a
 * connection dropped by the server (restart, failover) is logged instead of crashing the process
 * (house style §10.5).
 *
 * @param databaseUrl - PostgreSQL connection string (`DATABASE_URL`).
 * @param options.max - pool size (`DATABASE_POOL_MAX`, default 10).
 * @param options.logger - receives `warn` records for idle-client errors.
 */
export function createPool(databaseUrl: string, options: { max?: number; logger?: Logger } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  const log = options.logger?.child({ component: 'pg-pool' });
  pool.on('error', (err) => log?.warn({ err }, 'idle database client failed'));
  // A checked-out client has no pool listener; without its own, a dropped connection between two
  // queries of a transaction would be an unhandled 'error' event (process exit).
  pool.on('connect', (client) => client.on('error', (err) => log?.debug({ err }, 'database client failed')));
  return pool;
}

/** SQLSTATE classes that mean "the database is not reachable right now" (retry later → 503). */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0)/;

/**
 * Whether an error from `pg` means the database is unavailable (connection refused, dropped, pool
 * timeout, shutting down, too many connections) rather than a statement error. Anything that is not
 * a server-side `DatabaseError` is a connection-level failure.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return true;
  return UNAVAILABLE_SQLSTATE.test(err.code ?? '');
}
