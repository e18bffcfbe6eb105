import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type RunningPostgres } from '../../dev-stack/embedded-postgres.js';
import { createDatabase, dropDatabase } from '../../dev-stack/scratch-databases.js';
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
    /**
     * Name of a migrated database on the same server that nobody connects to (connections refused): the fresh
     * lakes of `lake-databases.ts` are copies of it, instead of running every migration once per lake.
     */
    lakeTemplateDatabase: string;
  }
}

let running: RunningPostgres | undefined;
let dataDir: string | undefined;
let sharedUrl: string | undefined;
let templateUrl: string | undefined;

async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The embedded cluster is thrown away with the run, so it need not survive a power cut: no fsync and no
 * full-page writes, and a commit returns before its WAL is flushed. Creating and dropping a fresh lake no
 * longer waits for a checkpoint's fsyncs. A server given by DATABASE_URL is left as it is.
 */
async function skipDurability(databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    for (const setting of ['fsync', 'full_page_writes', 'synchronous_commit'])
      await client.query(`ALTER SYSTEM SET ${setting} = off`);
    await client.query('SELECT pg_reload_conf()');
  });
}

/** Creates and migrates the fresh lakes' template, then closes it to connections (a copy needs it unused). */
async function createLakeTemplate(databaseUrl: string, name: string): Promise<string> {
  const url = await createDatabase(databaseUrl, name);
  await runMigrations({ databaseUrl: url });
  await withClient(databaseUrl, (client) =>
    client.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} WITH ALLOW_CONNECTIONS false`)
  );
  return url;
}

/**
 * Starts PostgreSQL once per test run and migrates it (house style §7: migrated once per run), with a migrated
 * template for the fresh lakes next to it.
 */
export async function setup(project: TestProject): Promise<void> {
  let databaseUrl = process.env['DATABASE_URL'];
  if (!databaseUrl) {
    dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-test-pg-'));
    running = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_test' });
    databaseUrl = running.databaseUrl;
    await skipDurability(databaseUrl);
  }
  const templateName = `wa_lake_template_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  [, templateUrl] = await Promise.all([runMigrations({ databaseUrl }), createLakeTemplate(databaseUrl, templateName)]);
  sharedUrl = databaseUrl;
  project.provide('databaseUrl', databaseUrl);
  project.provide('lakeTemplateDatabase', templateName);
}

/** How many erasure tombstones the shared database holds (it must hold none, see `databaseUrl`). */
function countSharedTombstones(databaseUrl: string): Promise<number> {
  return withClient(
    databaseUrl,
    async (client) =>
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM whatsapp_erasure_tombstones')).rows[0]?.n ?? 0
  );
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
    // The embedded cluster goes as a whole; on a server of DATABASE_URL only the template is this run's to drop.
    if (running === undefined && templateUrl !== undefined) await dropDatabase(templateUrl);
    await running?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
