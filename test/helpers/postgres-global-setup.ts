import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type RunningPostgres } from '../../dev-stack/embedded-postgres.js';
import { runMigrations } from '../../lake/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Connection string of the migrated test database (embedded PostgreSQL unless DATABASE_URL is set), shared by
     * every file at once: a test writes rows of its own there (unique ids), never lake-wide state. An erasure
     * tombstone is lake-wide (every later delivery then needs ERASURE_KEY, ADR 0027): a file that runs `forget`
     * takes a lake of its own (`useFreshLake`), and the teardown fails the run when the shared one holds any.
     */
    databaseUrl: string;
  }
}

let running: RunningPostgres | undefined;
let dataDir: string | undefined;
let sharedUrl: string | undefined;

/** Starts PostgreSQL once per test run and migrates it (house style §7: migrated once per run). */
export async function setup(project: TestProject): Promise<void> {
  let databaseUrl = process.env['DATABASE_URL'];
  if (!databaseUrl) {
    dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-test-pg-'));
    running = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_test' });
    databaseUrl = running.databaseUrl;
  }
  await runMigrations({ databaseUrl });
  sharedUrl = databaseUrl;
  project.provide('databaseUrl', databaseUrl);
}

/** How many erasure tombstones the shared database holds (it must hold none, see `databaseUrl`). */
async function countSharedTombstones(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM whatsapp_erasure_tombstones');
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

export async function teardown(): Promise<void> {
  try {
    const tombstones = sharedUrl === undefined ? 0 : await countSharedTombstones(sharedUrl);
    if (tombstones > 0) {
      // vitest prints an error thrown by a teardown but keeps the run's exit code: set it, so the run fails.
      process.exitCode = 1;
      throw new Error(
        `the shared test database holds ${tombstones} erasure tombstone(s): a test ran forget on inject('databaseUrl'), ` +
          'which makes every other delivery there fail without ERASURE_KEY; give that file a lake of its own (useFreshLake)'
      );
    }
  } finally {
    await running?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
