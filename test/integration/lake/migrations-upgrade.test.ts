import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, dropDatabase } from '../../../dev-stack/scratch-databases.js';
import { MIGRATIONS_TABLE, runMigrations } from '../../../lake/migrate.js';

// Existing lakes migrate unchanged after the move of ingest-api/migrations to lake/migrations (ADR 0021).
const MIGRATIONS_DIR = fileURLToPath(new URL('../../../lake/migrations', import.meta.url));
/** The migrations of the release before lake/ existed (ingest-api/migrations at aeb5043), by name. */
const PREVIOUS_RELEASE = [
  '1764400000000_create-event-logs',
  '1764400000001_create-projections',
  '1764400000002_index-participant-keys',
  '1764500000000_projection-precedence',
  '1764600000000_create-message-read-model',
  '1764600000001_create-engagement-views',
  '1764700000000_privacy-retention-erasure',
  '1764800000000_create-outbound-send',
  '1764900000000_send-status-webhook-secret',
  '1764940000000_drop-message-sender-index',
  '1765000000000_engagement-member-day-deltas',
  '1765100000000_engagement-rollup-at-read-time',
  '1765100000001_membership-changes-after-snapshots',
];
const everyMigration = readdirSync(MIGRATIONS_DIR)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function scratchDatabase(label: string): Promise<string> {
  const url = await createDatabase(inject('databaseUrl'), `wa_lake_${label}_${process.pid}_${Date.now()}`);
  cleanups.push(() => dropDatabase(url));
  return url;
}

describe('lake migrations', () => {
  it('run every migration, in id order, on an empty database', async () => {
    const url = await scratchDatabase('empty');
    expect(await runMigrations({ databaseUrl: url })).toEqual(everyMigration);
    expect(await runMigrations({ databaseUrl: url })).toEqual([]);
  });

  it('apply only what is new to a lake the previous release built from ingest-api/migrations', async () => {
    const url = await scratchDatabase('upgrade');
    const previous = mkdtempSync(join(tmpdir(), 'wa-lake-previous-release-'));
    cleanups.push(() => rmSync(previous, { recursive: true, force: true }));
    const previousDir = join(previous, 'ingest-api', 'migrations');
    mkdirSync(previousDir, { recursive: true });
    for (const name of PREVIOUS_RELEASE)
      copyFileSync(join(MIGRATIONS_DIR, `${name}.ts`), join(previousDir, `${name}.ts`));
    const built = await runner({
      databaseUrl: url,
      dir: previousDir,
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      singleTransaction: true,
      log: () => undefined,
    });
    expect(built.map((migration) => migration.name)).toEqual(PREVIOUS_RELEASE);

    expect(await runMigrations({ databaseUrl: url })).toEqual(everyMigration.slice(PREVIOUS_RELEASE.length));
    expect(await runMigrations({ databaseUrl: url })).toEqual([]);
  });
});
