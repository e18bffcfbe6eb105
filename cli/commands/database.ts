import type pg from 'pg';
import { z } from 'zod';
import { envPostgresUrl, parseConfig } from '../../common/config-schema.js';
import { createPool } from '../../lake/index.js';

/**
 * Reads `DATABASE_URL` for lake commands that need nothing else, validated like every process's config
 * (a value such as `notaurl` fails here, never later in pg as "getaddrinfo ENOTFOUND base").
 * @throws ConfigError when it is unset or not a postgres:// connection string.
 */
export function requireDatabaseUrl(): string {
  return parseConfig(z.object({ DATABASE_URL: envPostgresUrl }), process.env).DATABASE_URL;
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
