import pg from 'pg';
import type { Logger } from '../common/logger.js';
import { DatabaseBusyError, DatabaseUnavailableError } from './errors.js';

/** How long a request waits for a connection before the API answers 503 (ms). */
export const CONNECTION_TIMEOUT_MS = 5_000;

/** How long `end()` waits for the server to close the pool's connections before it resolves anyway (ms). */
export const CLIENT_CLOSE_TIMEOUT_MS = 5_000;

/**
 * A `pg.Pool` whose `end()` resolves only once every connection it opened is closed by the server.
 * pg-pool's own `end()` resolves as soon as it has *asked* each client to end: the Terminate message may
 * still be in flight, so a PostgreSQL stopped right after (the local stack's next step) terminates those
 * backends and the pool reports "idle database client failed … terminating connection due to
 * administrator command". pg-pool emits `remove` once a client's connection ended.
 */
class DrainingPool extends pg.Pool {
  readonly #openClients = new Set<pg.PoolClient>();
  #onAllClosed: (() => void) | undefined;

  constructor(config: pg.PoolConfig) {
    super(config);
    this.on('connect', (client) => this.#openClients.add(client));
    this.on('remove', (client) => {
      this.#openClients.delete(client);
      if (this.#openClients.size === 0) this.#onAllClosed?.();
    });
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | void {
    const ended = this.#endAndWaitForClients();
    if (!callback) return ended;
    void ended.then(
      () => callback(),
      () => callback()
    );
  }

  async #endAndWaitForClients(): Promise<void> {
    await super.end();
    if (this.#openClients.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#onAllClosed = resolve;
      // A server that never closes its side must not hang the caller's shutdown.
      timer = setTimeout(resolve, CLIENT_CLOSE_TIMEOUT_MS);
      timer.unref();
    });
    clearTimeout(timer);
  }
}

/**
 * Creates the one `pg.Pool` of a process, with `'error'` listeners on the pool and on every client so a
 * connection dropped by the server (restart, failover) is logged instead of crashing the process
 * (house style §10.5). `end()` resolves once the server has closed every connection of the pool, so
 * the database may be stopped right after it.
 *
 * @param databaseUrl - PostgreSQL connection string (`DATABASE_URL`).
 * @param options.max - pool size (`DATABASE_POOL_MAX`, default 10).
 * @param options.logger - receives `warn` records for idle-client errors; `debug` once `end()` was
 *   called, when a connection closing during an orderly shutdown is expected.
 * @param options.connectionTimeoutMs - how long a checkout waits for a connection (ms, default
 *   {@link CONNECTION_TIMEOUT_MS}); tests shorten it to reach the pool-busy answer quickly.
 */
export function createPool(
  databaseUrl: string,
  options: { max?: number; logger?: Logger; connectionTimeoutMs?: number } = {}
): pg.Pool {
  const pool = new DrainingPool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  const log = options.logger?.child({ component: 'pg-pool' });
  pool.on('error', (err) => {
    if (pool.ending) log?.debug({ err }, 'idle database client failed while the pool was ending');
    else log?.warn({ err }, 'idle database client failed');
  });
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
 * a server-side `DatabaseError` is a connection-level failure; {@link toDatabaseAvailabilityError}
 * singles out the pool checkout timeout as "busy" before asking this.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return true;
  return UNAVAILABLE_SQLSTATE.test(err.code ?? '');
}

// pg-pool (node_modules/pg-pool/index.js) rejects a checkout that waited `connectionTimeoutMillis` for a
// client to be released with exactly this plain Error: it has no code or class, so its message is the only
// signal. A slow *new* connection fails with another message ("Connection terminated due to connection
// timeout") and stays "unavailable". test/integration/ingest-api/pool-busy.test.ts pins this message.
const POOL_CHECKOUT_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * Whether `err` is pg-pool's checkout timeout: every connection of a full pool stayed busy for the
 * connection timeout, while PostgreSQL itself may be fine.
 */
export function isPoolCheckoutTimeout(err: unknown): boolean {
  return (
    err instanceof Error &&
    !(err instanceof pg.DatabaseError) &&
    err.constructor === Error &&
    err.message === POOL_CHECKOUT_TIMEOUT_MESSAGE
  );
}

/**
 * Translates a failure of `pool.connect()`/`pool.query()` into the repositories' availability errors
 * (HTTP 503, architecture.md §8).
 *
 * @returns a {@link DatabaseBusyError} for a pool checkout timeout, a {@link DatabaseUnavailableError}
 *   for any other connection-level failure (see {@link isDatabaseUnavailable}), `undefined` for a
 *   statement error the caller handles itself.
 */
export function toDatabaseAvailabilityError(err: unknown): DatabaseBusyError | DatabaseUnavailableError | undefined {
  if (isPoolCheckoutTimeout(err)) return new DatabaseBusyError(err);
  if (isDatabaseUnavailable(err)) return new DatabaseUnavailableError(err);
  return undefined;
}

/**
 * Runs one statement on the pool and returns its rows, with connection and busy errors translated by
 * {@link toDatabaseAvailabilityError}: the one query helper of the lake's repositories.
 */
export async function queryRows<T extends pg.QueryResultRow>(
  pool: pg.Pool,
  sql: string,
  params: unknown[]
): Promise<T[]> {
  try {
    return (await pool.query<T>(sql, params)).rows;
  } catch (err) {
    throw toDatabaseAvailabilityError(err) ?? err;
  }
}

/**
 * Runs `run` on one client of `pool` inside a transaction that `begin` opens (default `BEGIN`; a report passes
 * `BEGIN ISOLATION LEVEL REPEATABLE READ` so that every query reads the same snapshot): committed when `run`
 * resolves, rolled back when it throws, and the client goes back to the pool either way.
 * @throws what `run` throws, or the error of BEGIN or COMMIT.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  run: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN'
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await run(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
