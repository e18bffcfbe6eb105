import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EmbeddedPostgresStartError,
  startEmbeddedPostgres,
  type RunningPostgres,
} from '../../../dev-stack/embedded-postgres.js';
import { findLeftoverPostmaster, stopLeftoverPostmaster } from '../../../dev-stack/leftover-postmaster.js';

describe('startEmbeddedPostgres', () => {
  const toStop: RunningPostgres[] = [];
  const dirs: string[] = [];
  const newDataDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-pg-life-'));
    dirs.push(dir);
    // The server runs as the `postgres` user, which must reach its data dir inside this folder.
    chmodSync(dir, 0o755);
    return join(dir, 'postgres');
  };
  afterEach(async () => {
    for (const server of toStop.splice(0)) await server.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a data dir still held by a server from an earlier run, naming its pid and the stop command', async () => {
    const dataDir = newDataDir();
    const earlier = await startEmbeddedPostgres({ dataDir, database: 'wa_lake' });
    toStop.push(earlier);

    const refused = startEmbeddedPostgres({ dataDir, database: 'wa_lake' });
    await expect(refused).rejects.toBeInstanceOf(EmbeddedPostgresStartError);
    await expect(refused).rejects.toThrow(`pid ${earlier.pid}, port ${earlier.port}`);
    await expect(refused).rejects.toThrow(`kill -INT ${earlier.pid}`);

    const leftover = findLeftoverPostmaster(dataDir);
    expect(leftover).toEqual({ pid: earlier.pid, port: earlier.port, dataDir });
    await stopLeftoverPostmaster(leftover!);
    expect(findLeftoverPostmaster(dataDir)).toBeNull();
    toStop.push(await startEmbeddedPostgres({ dataDir, database: 'wa_lake' }));
  });

  it("carries PostgreSQL's own log lines when the server exits during start", async () => {
    const dataDir = newDataDir();
    await (await startEmbeddedPostgres({ dataDir, database: 'wa_lake' })).stop();
    appendFileSync(join(dataDir, 'postgresql.conf'), '\nshared_buffers = not-a-size\n');
    const failed = startEmbeddedPostgres({ dataDir, database: 'wa_lake' });
    await expect(failed).rejects.toBeInstanceOf(EmbeddedPostgresStartError);
    await expect(failed).rejects.toThrow(/last log lines: .*shared_buffers/);
  });

  it('reports a postmaster killed while running, and stop() then resolves at once', async () => {
    const server = await startEmbeddedPostgres({ dataDir: newDataDir(), database: 'wa_lake' });
    process.kill(server.pid, 'SIGKILL');
    await expect(server.unexpectedExit).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    const startedAt = Date.now();
    await server.stop();
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });
});
