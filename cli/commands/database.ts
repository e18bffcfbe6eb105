import type pg from 'pg';
import { createPool } from '../../ingest-api/index.js';

/** Reads `DATABASE_URL` for lake commands that need nothing else. @throws Error when it is unset. */
export function requireDatabaseUrl(): string {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL is required (postgres://user:password@host:port/database)');
  return url;
}

/** Runs `work` with a small pool on `DATABASE_URL`, ended afterwards whatever happens. */
export async function withLakePool<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = createPool(requireDatabaseUrl(), { max: 2 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}
