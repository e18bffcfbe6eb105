import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireInstanceLock } from '../../../collector/instance-lock.js';
import { runCli } from '../../helpers/run-cli.js';

const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const CAPTURE = join(CHECKOUT, 'examples', 'capture.jsonl');
const MARKER = '.wa-lake-demo-folder';

// ADR 0017: `demo --data-dir DIR` deleted DIR whatever it held (a photo folder, a running dev's data).
// Every test has folders of its own and runs the CLI in child processes: they run side by side.
describe.concurrent.each(['demo', 'demo-send'])('wa-lake %s --data-dir', (command) => {
  let dir: string;
  const args = (dataDir: string): string[] =>
    command === 'demo' ? ['demo', CAPTURE, '--data-dir', dataDir] : ['demo-send', '--data-dir', dataDir];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `wa-lake-${command}-dir-`));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a non-empty folder it did not make, and deletes nothing', async () => {
    const photos = join(dir, 'photos');
    mkdirSync(photos);
    writeFileSync(join(photos, 'holiday.jpg'), 'not really a photo');
    const run = await runCli(args(photos));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`refusing to use ${photos} as the demo's data folder`);
    expect(run.stderr).toContain(`no demo made it (no ${MARKER} inside)`);
    expect(readdirSync(photos)).toEqual(['holiday.jpg']);
  });

  it('refuses a folder whose stack lock a live process holds, even one a demo made', async () => {
    const busy = join(dir, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, MARKER), 'made by a demo\n');
    writeFileSync(join(busy, 'outbox.sqlite'), 'a running stack’s outbox');
    // The lock a running `wa-lake dev` or demo holds, held by a live process (this test).
    const lock = acquireInstanceLock({ outboxPath: join(busy, 'wa-lake-dev') });
    try {
      const run = await runCli(args(busy));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`(pid ${process.pid}) is already using the data folder ${busy}`);
      expect(readdirSync(busy).sort()).toEqual([MARKER, 'outbox.sqlite', 'wa-lake-dev.instance.lock']);
    } finally {
      lock.release();
    }
  });

  it.each([
    ['the filesystem root', '/', 'it is the filesystem root'],
    ['the checkout', CHECKOUT, 'it is the wa-lake checkout'],
  ])('refuses %s', async (_name, target, reason) => {
    const run = await runCli(args(target), { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`refusing to use ${target} as the demo's data folder`);
    expect(run.stderr).toContain(reason);
    expect(existsSync(join(CHECKOUT, 'package.json'))).toBe(true);
  });

  it('refuses . and ~ even when they are empty', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const [here, tilde, above] = await Promise.all([
      runCli(args('.'), { cwd: home, env: { HOME: join(dir, 'elsewhere') } }),
      runCli(args(home), { env: { HOME: home } }),
      runCli(args(dir), { env: { HOME: home } }),
    ]);
    expect(here.code).toBe(1);
    expect(here.stderr).toContain('it is the working directory');
    expect(tilde.code).toBe(1);
    expect(tilde.stderr).toContain('it is your home folder');
    expect(above.code).toBe(1);
    expect(above.stderr).toContain(`it holds your home folder (${home})`);
    expect(existsSync(home)).toBe(true);
  });

  it('refuses an empty path, saying it is empty, and writes nothing in the working directory', async () => {
    const here = join(dir, 'here');
    mkdirSync(here);
    const run = await runCli(args(''), { cwd: here });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "option '--data-dir <dir>' argument '' is invalid. expected a path, not an empty string."
    );
    expect(run.stderr).not.toContain('working directory');
    expect(readdirSync(here)).toEqual([]);
  });
});

describe.concurrent('wa-lake demo on its own folder', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-demo-again-'));
    // Run as root, embedded PostgreSQL's initdb runs as `postgres`, which must reach the data folder.
    chmodSync(dir, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a second time on the folder the first run made, starting from an empty folder', async () => {
    const dataDir = join(dir, 'demo');
    const first = await runCli(['demo', CAPTURE, '--data-dir', dataDir], { timeoutMs: 240_000 });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(existsSync(join(dataDir, MARKER))).toBe(true);
    writeFileSync(join(dataDir, 'left-by-the-first-run.txt'), 'x');
    const second = await runCli(['demo', CAPTURE, '--data-dir', dataDir], { timeoutMs: 240_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('OK');
    // The Web UI stopped with the demo: the summary does not send the user to it.
    expect(second.stdout).toContain(
      'Temporal Web UI             : (stopped with the demo; --keep-running keeps it up)'
    );
    expect(existsSync(join(dataDir, 'left-by-the-first-run.txt'))).toBe(false);
    expect(existsSync(join(dataDir, MARKER))).toBe(true);
  }, 600_000);
});
