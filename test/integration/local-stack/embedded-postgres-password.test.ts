import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirLayout, loadOrCreatePostgresPassword } from '../../../cli/local-stack/data-dir.js';
import {
  startEmbeddedPostgres,
  THROWAWAY_CLUSTER_PASSWORD,
  type RunningPostgres,
} from '../../../dev-stack/embedded-postgres.js';

// ADR 0028: `wa-lake dev`'s embedded PostgreSQL (a superuser on 127.0.0.1) has a random password per data folder,
// kept 0600 in it; a folder whose cluster was made with the old fixed password keeps working with it.
async function canLogIn(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'wa_lake' });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe("wa-lake dev's embedded PostgreSQL password", () => {
  const toStop: RunningPostgres[] = [];
  const dirs: string[] = [];
  const newDataFolder = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-pg-pw-'));
    dirs.push(dir);
    chmodSync(dir, 0o755);
    return dir;
  };
  afterEach(async () => {
    for (const server of toStop.splice(0)) await server.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is random per data folder, kept 0600, and the only one the cluster accepts across restarts', async () => {
    const layout = dataDirLayout(newDataFolder());
    const password = loadOrCreatePostgresPassword(layout);
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(layout.postgresPasswordFile).mode & 0o777).toBe(0o600);
    expect(loadOrCreatePostgresPassword(dataDirLayout(newDataFolder()))).not.toBe(password);

    const first = await startEmbeddedPostgres({ dataDir: layout.postgresDir, database: 'wa_lake', password });
    expect(first.databaseUrl).toContain(`postgres:${password}@`);
    expect(await canLogIn(first.port, password)).toBe(true);
    expect(await canLogIn(first.port, THROWAWAY_CLUSTER_PASSWORD)).toBe(false);
    await first.stop();

    expect(loadOrCreatePostgresPassword(layout)).toBe(password);
    const again = await startEmbeddedPostgres({
      dataDir: layout.postgresDir,
      database: 'wa_lake',
      password: loadOrCreatePostgresPassword(layout),
    });
    toStop.push(again);
    expect(await canLogIn(again.port, password)).toBe(true);
  });

  it('keeps the fixed password of a cluster made before the password file existed', async () => {
    const layout = dataDirLayout(newDataFolder());
    await (await startEmbeddedPostgres({ dataDir: layout.postgresDir, database: 'wa_lake' })).stop();
    const password = loadOrCreatePostgresPassword(layout);
    expect(password).toBe(THROWAWAY_CLUSTER_PASSWORD);
    expect(statSync(layout.postgresPasswordFile).mode & 0o777).toBe(0o600);
    const server = await startEmbeddedPostgres({ dataDir: layout.postgresDir, database: 'wa_lake', password });
    toStop.push(server);
    expect(await canLogIn(server.port, password)).toBe(true);
  });
});
