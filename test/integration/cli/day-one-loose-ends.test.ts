import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireInstanceLock } from '../../../collector/instance-lock.js';
import { runCli } from '../../helpers/run-cli.js';

// Loose ends an operator meets on day one, each refused with a sentence before anything starts.
describe('wa-lake day-one refusals', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-day-one-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The replay and status tests below have files of their own and bind no port: they run side by side. The dev
  // tests after them take and free ports, one at a time.
  it.concurrent('replay of a missing file says so and creates no outbox', async () => {
    const outboxPath = join(dir, 'outbox.sqlite');
    const run = await runCli(['replay', join(dir, 'nope.jsonl')], {
      env: { OUTBOX_PATH: outboxPath, AUTH_DIR: join(dir, 'auth'), TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`wa-lake replay: no capture at ${join(dir, 'nope.jsonl')}`);
    expect(existsSync(outboxPath)).toBe(false);
  });

  it.concurrent(
    'replay of a data folder refuses it in words, reads none of its files and creates no outbox',
    async () => {
      const dataDir = join(dir, 'replay-data-folder');
      mkdirSync(dataDir);
      // What a wa-lake dev folder holds: its status file is JSON, yet no capture.
      writeFileSync(join(dataDir, 'collector-status.json'), '{"sessionState":"open","pid":1}\n');
      const outboxPath = join(dir, 'folder-outbox.sqlite');
      const run = await runCli(['replay', dataDir], {
        env: { OUTBOX_PATH: outboxPath, AUTH_DIR: join(dir, 'auth'), TEMPORAL_ADDRESS: '127.0.0.1:1' },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `wa-lake replay: ${dataDir} is a folder without a first-collector trail in it (<event>/<YYYY-MM-DD>.json files)`
      );
      expect(run.stderr).toContain('no outbox was opened');
      expect(run.stdout).not.toContain('read ');
      expect(existsSync(outboxPath)).toBe(false);
    }
  );

  it.concurrent.each([
    ['a FIFO', () => makeFifo(join(dir, 'capture.fifo'))],
    ['a device', () => '/dev/zero'],
  ])('replay of %s refuses it at once and creates no outbox', async (_kind, makePath) => {
    const capture = makePath();
    const outboxPath = join(dir, `special-${randomUUID()}.sqlite`);
    const run = await runCli(['replay', capture], {
      env: { OUTBOX_PATH: outboxPath, AUTH_DIR: join(dir, 'auth'), TEMPORAL_ADDRESS: '127.0.0.1:1' },
      timeoutMs: 30_000,
    });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`wa-lake replay: ${capture} is no regular file (a device, a pipe or a socket)`);
    expect(existsSync(outboxPath)).toBe(false);
  });

  it.concurrent('replay reports its progress with the share done, a rate and an ETA', async () => {
    const capture = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));
    const run = await runCli(['replay', capture, '--wait-ms', '0'], {
      env: {
        OUTBOX_PATH: join(dir, 'progress.sqlite'),
        AUTH_DIR: join(dir, 'auth'),
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        // Nothing listens there: each workflow start the relay tries before the replay ends fails at this
        // deadline instead of the default 10 s (the progress lines are what this test reads).
        OUTBOX_RELAY_START_TIMEOUT_MS: '500',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      },
    });
    const progress = run.stdout
      .split('\n')
      .filter((line) => line.includes('"replay progress"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(progress.at(-1), run.stderr).toMatchObject({ percent: 100, etaSeconds: 0 });
    expect(progress.at(-1)?.['linesPerSecond']).toEqual(expect.any(Number));
  });

  it.concurrent('dev with one port for two parts names both options and starts nothing', async () => {
    const dataDir = join(dir, 'data');
    const run = await runCli(['dev', '--data-dir', dataDir, '--temporal-port', '17999', '--ui-port', '17999']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('wa-lake dev: --temporal-port and --ui-port are both 17999');
    expect(run.stderr).toContain('nothing was started');
    expect(existsSync(dataDir)).toBe(false);
  });

  it.concurrent('status --data-dir reads the stack of that folder, whatever OUTBOX_PATH says (ADR 0017)', async () => {
    const dataDir = join(dir, 'status-data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'dev-stack.json'), '{"temporalAddress":"127.0.0.1:1"}\n');
    const run = await runCli(['status', '--data-dir', dataDir], { env: { OUTBOX_PATH: join(dir, 'other.sqlite') } });
    expect(run.stdout).toContain(`outbox       : none at ${join(dataDir, 'outbox.sqlite')}`);
    expect(run.stdout).toContain('history      : none (no collector has run with this OUTBOX_PATH)');
    expect(run.stdout).toContain('cannot reach Temporal at 127.0.0.1:1');
    const missing = await runCli(['status', '--data-dir', join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no data folder at ${join(dir, 'nope')} (--data-dir)`);
  });

  it.concurrent(
    'status with nothing set reads the stack wa-lake dev recorded in ./.data, not the default port',
    async () => {
      const checkout = join(dir, 'checkout');
      mkdirSync(join(checkout, '.data'), { recursive: true });
      writeFileSync(join(checkout, '.data', 'dev-stack.json'), '{"temporalAddress":"127.0.0.1:1"}\n');
      const run = await runCli(['status'], { cwd: checkout });
      expect(run.stdout).toContain(`outbox       : none at ${join(checkout, '.data', 'outbox.sqlite')}`);
      expect(run.stdout).toContain('cannot reach Temporal at 127.0.0.1:1');
    }
  );

  it('dev with a taken port names it with its option before any part starts (ADR 0017)', async () => {
    const [taken] = await takePorts(1);
    const dataDir = join(dir, 'taken-port');
    try {
      // The other parts get ports of their own: another stack on this machine may hold the defaults.
      const others = await freePorts(4);
      const run = await runCli([
        'dev',
        '--data-dir',
        dataDir,
        '--postgres-port',
        String(taken!.port),
        ...['--temporal-port', '--ui-port', '--ingest-port', '--codec-port'].flatMap((option, index) => [
          option,
          String(others[index]),
        ]),
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`port ${taken!.port} for embedded PostgreSQL (--postgres-port) is already in use`);
      // Nothing was started or written: no Temporal state file, no cluster, no lock file, not even the folder.
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await closeAll([taken!]);
    }
  });

  it('dev with several taken ports names every one with its option in one message', async () => {
    const taken = await takePorts(3);
    const [temporal, ingest, codec] = taken.map((entry) => String(entry.port));
    const free = await freePorts(2);
    try {
      const run = await runCli([
        'dev',
        '--data-dir',
        join(dir, 'several-taken'),
        ...['--temporal-port', temporal!, '--ingest-port', ingest!, '--codec-port', codec!],
        ...['--ui-port', String(free[0]), '--postgres-port', String(free[1])],
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `ports ${temporal} for the Temporal frontend (--temporal-port), ${ingest} for the ingest API (--ingest-port), ` +
          `${codec} for the codec server (--codec-port) are already in use on 127.0.0.1`
      );
      expect(run.stderr).toContain(`ss -ltnp 'sport = :${temporal} or sport = :${ingest} or sport = :${codec}'`);
    } finally {
      await closeAll(taken);
    }
  });

  it('dev refused for a taken port leaves an existing data folder as it found it (no lock file)', async () => {
    const dataDir = join(dir, 'existing-data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'webhook-secret'), `${'a'.repeat(64)}\n`, { mode: 0o600 });
    const [taken] = await takePorts(1);
    const free = await freePorts(4);
    try {
      const run = await runCli([
        'dev',
        '--data-dir',
        dataDir,
        '--ingest-port',
        String(taken!.port),
        ...['--temporal-port', '--ui-port', '--postgres-port', '--codec-port'].flatMap((option, index) => [
          option,
          String(free[index]),
        ]),
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`port ${taken!.port} for the ingest API (--ingest-port) is already in use`);
      expect(readdirSync(dataDir)).toEqual(['webhook-secret']);
    } finally {
      await closeAll([taken!]);
    }
  });

  it('dev on a folder a running stack holds names that stack, not the ports it holds', async () => {
    const dataDir = join(dir, 'held-data');
    mkdirSync(dataDir, { mode: 0o700 });
    const held = acquireInstanceLock({ outboxPath: join(dataDir, 'wa-lake-dev') });
    const [taken] = await takePorts(1);
    try {
      const run = await runCli(['dev', '--data-dir', dataDir, '--temporal-port', String(taken!.port)]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`another wa-lake dev or demo (pid ${process.pid}) is already using the data folder`);
      expect(run.stderr).not.toContain('already in use on 127.0.0.1');
    } finally {
      held.release();
      await closeAll([taken!]);
    }
  });
});

/** A named pipe at `path` (mkfifo), which no writer ever opens: a read of it blocks. */
function makeFifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

/** `count` servers listening on ports the kernel picked, standing for other programs that hold them. */
async function takePorts(count: number): Promise<Array<{ server: Server; port: number }>> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  return servers.map((server) => {
    const address = server.address();
    return { server, port: typeof address === 'object' && address ? address.port : 0 };
  });
}

async function closeAll(taken: ReadonlyArray<{ server: Server }>): Promise<void> {
  await Promise.all(taken.map(({ server }) => new Promise((resolve) => server.close(resolve))));
}

/** `count` distinct ports free at this moment (each bound to 0 by the kernel, then released). */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
