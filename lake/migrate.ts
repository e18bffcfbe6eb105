import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type { Logger } from '../common/logger.js';
import { MigrationFailedError } from './errors.js';

/** Folder of the migration files (`.ts` under tsx/vitest, `.js` in a compiled tree). */
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));
/** Table in which node-pg-migrate records applied migrations. */
export const MIGRATIONS_TABLE = 'pgmigrations';
/** Skips dotfiles, source maps and declaration files that a compiled tree puts next to migrations. */
const IGNORE_PATTERN = '(\\..*|.*\\.map|.*\\.d\\.ts)';

/**
 * Applies every pending migration of the lake (architecture.md §8: "Migrations run with a migration tool").
 * Idempotent: applied migrations are skipped, so calling it twice (or from two processes at once:
 * the second waits on node-pg-migrate's advisory lock) is safe.
 *
 * @param options.databaseUrl - PostgreSQL connection string.
 * @param options.logger - optional pino logger; migration progress goes to `debug`.
 * @returns the names of the migrations applied now (empty when up to date).
 * @throws MigrationFailedError when a migration fails or the database cannot be reached (`cause` has the pg error).
 */
export async function runMigrations(options: { databaseUrl: string; logger?: Logger }): Promise<string[]> {
  const log = options.logger?.child({ component: 'migrate' });
  const quiet = (message: string): void => log?.debug({ detail: message }, 'migration progress');
  try {
    const applied = await runner({
      databaseUrl: options.databaseUrl,
      dir: MIGRATIONS_DIR,
      ignorePattern: IGNORE_PATTERN,
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      checkOrder: true,
      singleTransaction: true,
      advisoryLockMode: 'wait',
      logger: { debug: quiet, info: quiet, warn: (m) => log?.warn({ detail: m }, 'migration warning'), error: quiet },
    });
    const names = applied.map((migration) => migration.name);
    log?.info({ applied: names }, 'migrations applied');
    return names;
  } catch (err) {
    throw new MigrationFailedError(err);
  }
}
