import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../../../cli/local-stack/data-dir.js';
import { narrowPrivateFiles } from '../../../collector/narrow-private-files.js';
import { PrivateModeError, privateDirectoryMode, tightenPath } from '../../../common/private-files.js';
import { runCli } from '../../helpers/run-cli.js';

// ADR 0014 decision 6: every file the stack writes is owner-only whatever the umask, and wider modes left by
// older versions or by hand are narrowed with a warning.
const CAPTURE = fileURLToPath(new URL('../../../examples/capture.jsonl', import.meta.url));
const mode = (path: string): number => statSync(path).mode & 0o777;

/** Every path under `root` (not following links), with its mode. */
function walk(root: string): Array<{ path: string; mode: number; isDirectory: boolean }> {
  const found: Array<{ path: string; mode: number; isDirectory: boolean }> = [];
  const pending = [root];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue;
    found.push({ path, mode: stat.mode & 0o777, isDirectory: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of readdirSync(path)) pending.push(join(path, name));
  }
  return found;
}

let dir: string;
let umaskBefore: number;
beforeAll(() => {
  umaskBefore = process.umask(0o022);
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-private-'));
  // Run as root, the embedded PostgreSQL runs as `postgres` and must pass through here.
  chmodSync(dir, 0o711);
});
afterAll(() => {
  process.umask(umaskBefore);
  rmSync(dir, { recursive: true, force: true });
});

describe('files the stack writes under umask 022', () => {
  it('are all owner-only after a whole demo: data folder, Temporal, PostgreSQL, outbox, keys', async () => {
    const dataDir = join(dir, 'demo');
    const run = await runCli(['demo', CAPTURE, '--data-dir', dataDir], { timeoutMs: 240_000 });
    expect(run.code, run.stderr).toBe(0);

    const entries = walk(dataDir);
    const names = entries.map((entry) => relative(dataDir, entry.path));
    for (const expected of ['temporal.sqlite', 'outbox.sqlite', 'webhook-secret', 'payload-encryption-keys'])
      expect(names).toContain(expected);
    expect(names.some((name) => name.startsWith('postgres/'))).toBe(true);
    const open = entries
      .filter((entry) => entry.path !== dataDir && (entry.mode & 0o077) !== 0)
      .map((entry) => `${relative(dataDir, entry.path)} ${entry.mode.toString(8)}`);
    expect(open).toEqual([]);
    expect(mode(dataDir)).toBe(privateDirectoryMode());
  }, 300_000);
});

describe('private files left open by an older version or by hand', () => {
  it('are narrowed in the data folder, each with a warning, PostgreSQL left to itself', () => {
    const dataDir = join(dir, 'old-data');
    mkdirSync(join(dataDir, 'auth'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'webhook-secret'), 'a'.repeat(64), { mode: 0o666 });
    writeFileSync(join(dataDir, 'auth', 'creds.json'), '{}', { mode: 0o644 });
    chmodSync(join(dataDir, 'webhook-secret'), 0o666);
    mkdirSync(join(dataDir, 'postgres'), { mode: 0o750 });
    chmodSync(join(dataDir, 'postgres'), 0o750);

    const layout = prepareDataDir(dataDir);

    expect(layout.tightened.map((change) => [relative(dataDir, change.path), change.fromMode, change.toMode])).toEqual(
      expect.arrayContaining([
        ['', 0o755, privateDirectoryMode()],
        ['webhook-secret', 0o666, 0o600],
        ['auth', 0o755, 0o700],
        [join('auth', 'creds.json'), 0o644, 0o600],
      ])
    );
    expect(mode(join(dataDir, 'webhook-secret'))).toBe(0o600);
    expect(mode(join(dataDir, 'auth', 'creds.json'))).toBe(0o600);
    expect(mode(join(dataDir, 'postgres'))).toBe(0o750);
    expect(prepareDataDir(dataDir).tightened).toEqual([]);
  });

  it('are narrowed where a production collector keeps them: outbox, WAL, status, capture, the Baileys auth folder', () => {
    const root = join(dir, 'collector');
    mkdirSync(join(root, 'auth'), { recursive: true });
    chmodSync(join(root, 'auth'), 0o755);
    const files = ['outbox.sqlite', 'outbox.sqlite-wal', 'sent-messages.sqlite', 'status.json', 'capture.jsonl'];
    for (const name of [...files, join('auth', 'creds.json'), join('auth', 'pre-key-1.json')]) {
      writeFileSync(join(root, name), '{}');
      chmodSync(join(root, name), 0o644);
    }
    const warnings: Array<{ path: string; fromMode: string; toMode: string }> = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void warnings.push(JSON.parse(line) as (typeof warnings)[number]) }
    );

    narrowPrivateFiles(
      {
        OUTBOX_PATH: join(root, 'outbox.sqlite'),
        AUTH_DIR: join(root, 'auth'),
        COLLECTOR_STATUS_PATH: join(root, 'status.json'),
        recordPath: join(root, 'capture.jsonl'),
      },
      logger
    );

    for (const entry of walk(root).filter((entry) => entry.path !== root))
      expect([relative(root, entry.path), entry.mode]).toEqual([
        relative(root, entry.path),
        entry.isDirectory ? 0o700 : 0o600,
      ]);
    expect(warnings).toHaveLength(files.length + 3);
    expect(warnings).toContainEqual(
      expect.objectContaining({ path: join(root, 'auth', 'creds.json'), fromMode: '0644', toMode: '0600' })
    );
  });

  it('refuses, naming the fix, a file it cannot narrow', () => {
    // procfs refuses chmod (EPERM) even to root: the case of a file wa-lake does not own.
    const path = '/proc/self/status';
    expect(() => tightenPath(path)).toThrow(PrivateModeError);
    expect(() => tightenPath(path)).toThrow(
      `${path} is readable by other users (mode 0444) and wa-lake cannot narrow it (EPERM); run: chmod go-rwx ${path}`
    );
  });
});
