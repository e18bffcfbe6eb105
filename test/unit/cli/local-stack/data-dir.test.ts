import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirLayout, prepareDataDir } from '../../../../cli/local-stack/data-dir.js';
import { claimDemoDataDir } from '../../../../cli/local-stack/demo-data-dir.js';
import { privateDirectoryMode } from '../../../../common/private-files.js';

describe('prepareDataDir', () => {
  let base = '';
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('gives the folders it creates on the way the data folder’s mode, whatever the umask', () => {
    base = mkdtempSync(join(tmpdir(), 'wa-lake-parents-'));
    const previous = process.umask(0o077);
    try {
      prepareDataDir(join(base, '.data', 'demo'));
    } finally {
      process.umask(previous);
    }
    // As root, 0711: embedded PostgreSQL runs as `postgres` and must pass through `.data` to reach its cluster.
    expect(statSync(join(base, '.data')).mode & 0o777).toBe(privateDirectoryMode());
    expect(statSync(join(base, '.data', 'demo')).mode & 0o111).toBe(privateDirectoryMode() & 0o111);
  });

  it('narrows every secret file the layout names and the folder, after chmod 644/755 under umask 022', () => {
    base = mkdtempSync(join(tmpdir(), 'wa-lake-secrets-'));
    const layout = dataDirLayout(join(base, '.data'));
    const secrets = [
      layout.secretFile,
      layout.payloadKeyFile,
      layout.codecTokenFile,
      layout.postgresPasswordFile,
      layout.pgpassFile,
      layout.erasureKeyFile,
    ];
    const previous = process.umask(0o022);
    try {
      mkdirSync(layout.root);
      for (const file of secrets) writeFileSync(file, 'secret\n');
      chmodSync(layout.root, 0o755);
      for (const file of secrets) chmodSync(file, 0o644);

      const prepared = prepareDataDir(layout.root);

      for (const file of secrets) expect({ file, mode: statSync(file).mode & 0o777 }).toEqual({ file, mode: 0o600 });
      expect(statSync(layout.root).mode & 0o777).toBe(privateDirectoryMode());
      // Each narrowed path is one warning of `wa-lake dev` (start-local-stack.ts).
      expect(prepared.tightened.map((change) => change.path).sort()).toEqual([layout.root, ...secrets].sort());
    } finally {
      process.umask(previous);
    }
  });

  it('narrows only the stack’s own files in a folder it shares with a user’s files, and keeps the folder’s mode', () => {
    base = mkdtempSync(join(tmpdir(), 'wa-lake-shared-'));
    const folder = join(base, 'mine');
    mkdirSync(join(folder, 'photos'), { recursive: true });
    writeFileSync(join(folder, 'photos', 'cat.jpg'), 'x');
    writeFileSync(join(folder, 'webhook-secret'), 'secret\n');
    for (const path of [folder, join(folder, 'photos')]) chmodSync(path, 0o755);
    for (const file of ['photos/cat.jpg', 'webhook-secret']) chmodSync(join(folder, file), 0o644);

    const layout = prepareDataDir(folder);

    expect(statSync(join(folder, 'photos', 'cat.jpg')).mode & 0o777).toBe(0o644);
    expect(statSync(join(folder, 'photos')).mode & 0o777).toBe(0o755);
    expect(statSync(folder).mode & 0o777).toBe(0o755);
    expect(statSync(join(folder, 'webhook-secret')).mode & 0o777).toBe(0o600);
    expect(layout.tightened.map((change) => change.path)).toEqual([join(folder, 'webhook-secret')]);
  });

  it('leaves a folder a demo refuses as it found it, modes included', async () => {
    base = mkdtempSync(join(tmpdir(), 'wa-lake-refused-'));
    const folder = join(base, 'photos');
    mkdirSync(folder);
    writeFileSync(join(folder, 'cat.jpg'), 'x');
    chmodSync(folder, 0o1777);
    chmodSync(join(folder, 'cat.jpg'), 0o644);

    await expect(claimDemoDataDir(folder, pino({ level: 'silent' }))).rejects.toThrow(/no demo made it/);

    expect(statSync(folder).mode & 0o7777).toBe(0o1777);
    expect(statSync(join(folder, 'cat.jpg')).mode & 0o777).toBe(0o644);
  });
});
