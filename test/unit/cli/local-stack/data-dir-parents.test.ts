import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../../../../cli/local-stack/data-dir.js';
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
});
