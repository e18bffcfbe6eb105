import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// Loose ends an operator meets on day one, each refused with a sentence before anything starts.
describe('wa-lake day-one refusals', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-day-one-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replay of a missing file says so and creates no outbox', async () => {
    const outboxPath = join(dir, 'outbox.sqlite');
    const run = await runCli(['replay', join(dir, 'nope.jsonl')], {
      env: { OUTBOX_PATH: outboxPath, AUTH_DIR: join(dir, 'auth'), TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`wa-lake replay: no capture at ${join(dir, 'nope.jsonl')}`);
    expect(existsSync(outboxPath)).toBe(false);
  });

  it('replay reports its progress with the share done, a rate and an ETA', async () => {
    const capture = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));
    const run = await runCli(['replay', capture, '--wait-ms', '0'], {
      env: {
        OUTBOX_PATH: join(dir, 'progress.sqlite'),
        AUTH_DIR: join(dir, 'auth'),
        TEMPORAL_ADDRESS: '127.0.0.1:1',
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

  it('dev with one port for two parts names both options and starts nothing', async () => {
    const dataDir = join(dir, 'data');
    const run = await runCli(['dev', '--data-dir', dataDir, '--temporal-port', '17999', '--ui-port', '17999']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('wa-lake dev: --temporal-port and --ui-port are both 17999');
    expect(run.stderr).toContain('nothing was started');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('status --data-dir reads the stack of that folder, whatever OUTBOX_PATH says (ADR 0017)', async () => {
    const dataDir = join(dir, 'status-data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'dev-stack.json'), '{"temporalAddress":"127.0.0.1:1"}\n');
    const run = await runCli(['status', '--data-dir', dataDir], { env: { OUTBOX_PATH: join(dir, 'other.sqlite') } });
    expect(run.stdout).toContain(`outbox       : none at ${join(dataDir, 'outbox.sqlite')}`);
    expect(run.stdout).toContain('cannot reach Temporal at 127.0.0.1:1');
    const missing = await runCli(['status', '--data-dir', join(dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no data folder at ${join(dir, 'nope')} (--data-dir)`);
  });

  it('status with nothing set reads the stack wa-lake dev recorded in ./.data, not the default port', async () => {
    const checkout = join(dir, 'checkout');
    mkdirSync(join(checkout, '.data'), { recursive: true });
    writeFileSync(join(checkout, '.data', 'dev-stack.json'), '{"temporalAddress":"127.0.0.1:1"}\n');
    const run = await runCli(['status'], { cwd: checkout });
    expect(run.stdout).toContain(`outbox       : none at ${join(checkout, '.data', 'outbox.sqlite')}`);
    expect(run.stdout).toContain('cannot reach Temporal at 127.0.0.1:1');
  });

  it('dev with a taken port names it with its option before any part starts (ADR 0017)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const dataDir = join(dir, 'taken-port');
    try {
      // The other parts get ports of their own: another stack on this machine may hold the defaults.
      const others = await freePorts(4);
      const run = await runCli([
        'dev',
        '--data-dir',
        dataDir,
        '--postgres-port',
        String(port),
        ...['--temporal-port', '--ui-port', '--ingest-port', '--codec-port'].flatMap((option, index) => [
          option,
          String(others[index]),
        ]),
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`port ${port} for embedded PostgreSQL (--postgres-port) is already in use`);
      // Neither Temporal (its state file) nor PostgreSQL (its cluster) was started.
      expect(readdirSync(dataDir).filter((entry) => !entry.startsWith('wa-lake-dev'))).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

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
