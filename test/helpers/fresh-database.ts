import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { runMigrations } from '../../ingest-api/db/migrate.js';

/**
 * Creates a new, migrated database on the server of `serverUrl` (the run's shared test PostgreSQL), so a
 * test that counts lake rows sees only its own. @returns its connection string.
 */
export async function createFreshDatabase(serverUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await runMigrations({ databaseUrl: url.toString() });
  return url.toString();
}
