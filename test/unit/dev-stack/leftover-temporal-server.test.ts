import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findLeftoverTemporalServer,
  removeTemporalPidFile,
  stopLeftoverTemporalServer,
  writeTemporalPidFile,
} from '../../../dev-stack/leftover-temporal-server.js';

// A stand-in for `temporal server start-dev --db-filename <file>` that a killed `wa-lake dev` left running: a
// process whose command line carries the same words (ADR 0017).
async function spawnStandIn(dbFile: string, ignoreTerm = false): Promise<ChildProcess> {
  const handler = ignoreTerm ? "process.on('SIGTERM', () => {});" : '';
  const script = `${handler} process.stdout.write('ready\\n'); setInterval(() => {}, 1000)`;
  const child = spawn(process.execPath, ['-e', script, 'server', 'start-dev', '--db-filename', dbFile], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // Ready once its signal handler is installed: no sleep decides the outcome.
  await new Promise((resolve) => child.stdout?.once('data', resolve));
  return child;
}

const exitOf = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

describe('a Temporal dev server left behind by a killed wa-lake dev (ADR 0017)', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-leftover-temporal-'));
    dirs.push(dir);
    return { pidFile: join(dir, 'temporal-dev-server.pid'), dbFile: join(dir, 'temporal.sqlite') };
  };

  it('is found through the pid file and stopped', async () => {
    const { pidFile, dbFile } = folder();
    const child = await spawnStandIn(dbFile);
    children.push(child);
    const exited = exitOf(child);
    writeTemporalPidFile(pidFile, child.pid ?? -1);
    const leftover = findLeftoverTemporalServer(pidFile, dbFile);
    expect(leftover).toEqual({ pid: child.pid, dbFile });
    await stopLeftoverTemporalServer(leftover!);
    expect(await exited).toBe('SIGTERM');
    expect(findLeftoverTemporalServer(pidFile, dbFile)).toBeNull();
  });

  it('is killed when it ignores SIGTERM', async () => {
    const { pidFile, dbFile } = folder();
    const child = await spawnStandIn(dbFile, true);
    children.push(child);
    const exited = exitOf(child);
    writeTemporalPidFile(pidFile, child.pid ?? -1);
    await stopLeftoverTemporalServer({ pid: child.pid ?? -1, dbFile }, 200);
    expect(await exited).toBe('SIGKILL');
  });

  it('is not confused with another process: a reused pid, another folder’s server, no file, a bad file', async () => {
    const { pidFile, dbFile } = folder();
    const other = folder();
    const child = await spawnStandIn(other.dbFile);
    children.push(child);
    writeTemporalPidFile(pidFile, child.pid ?? -1);
    expect(findLeftoverTemporalServer(pidFile, dbFile)).toBeNull();
    writeTemporalPidFile(pidFile, process.pid);
    expect(findLeftoverTemporalServer(pidFile, dbFile)).toBeNull();
    writeFileSync(pidFile, 'garbage\n');
    expect(findLeftoverTemporalServer(pidFile, dbFile)).toBeNull();
    writeTemporalPidFile(pidFile, 4242);
    // Only the server the file names removes it: a later server's file outlives an earlier one's exit.
    removeTemporalPidFile(pidFile, 4241);
    expect(existsSync(pidFile)).toBe(true);
    removeTemporalPidFile(pidFile, 4242);
    expect(existsSync(pidFile)).toBe(false);
    expect(findLeftoverTemporalServer(pidFile, dbFile)).toBeNull();
  });
});
