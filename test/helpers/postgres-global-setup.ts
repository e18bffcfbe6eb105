import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type RunningPostgres } from '../../dev-stack/embedded-postgres.js';
import { runMigrations } from '../../lake/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the migrated test database (embedded PostgreSQL unless DATABASE_URL is set). */
    databaseUrl: string;
  }
}

let running: RunningPostgres | undefined;
let dataDir: string | undefined;

/** Starts PostgreSQL once per test run and migrates it (house style §7: migrated once per run). */
export async function setup(project: TestProject): Promise<void> {
  let databaseUrl = process.env['DATABASE_URL'];
  if (!databaseUrl) {
    dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-test-pg-'));
    running = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_test' });
    databaseUrl = running.databaseUrl;
  }
  await runMigrations({ databaseUrl });
  project.provide('databaseUrl', databaseUrl);
}

export async function teardown(): Promise<void> {
  await running?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
