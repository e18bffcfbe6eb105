import pg from 'pg';

/** URL of database `name` on the server of `databaseUrl` (same host, port, user and parameters). */
function onSameServer(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

async function onMaintenanceDatabase(databaseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: onSameServer(databaseUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates the empty database `name` on the server of `serverUrl` (any database URL of that server; the
 * statement runs on its `postgres` database), for the tests' fresh lakes and the benchmarks' scratch
 * databases — never for a production process (dev-stack/README.md). Migrating it is the caller's step
 * (`runMigrations` of lake/migrate.ts): dev-stack imports no process code.
 *
 * @param options.template - a database of that server to copy instead (`CREATE DATABASE … TEMPLATE`), e.g. one
 *   migrated once for many fresh lakes; nobody may be connected to it while it is copied.
 * @returns the new database's URL (the server's URL with its path set to `name`).
 * @throws pg.DatabaseError when the statement fails, e.g. code 42P04 when `name` already exists, or 55006 when
 *   someone is connected to `options.template`.
 */
export async function createDatabase(
  serverUrl: string,
  name: string,
  options: { template?: string } = {}
): Promise<string> {
  const template = options.template === undefined ? '' : ` TEMPLATE ${pg.escapeIdentifier(options.template)}`;
  await onMaintenanceDatabase(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}${template}`);
  return onSameServer(serverUrl, name);
}

/**
 * Drops the database `databaseUrl` points to, if it exists (e.g. one made by {@link createDatabase}).
 * Every pool on it must be ended first.
 *
 * @throws pg.DatabaseError when the statement fails, e.g. code 55006 while a connection is still open.
 */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  await onMaintenanceDatabase(databaseUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)}`);
}
