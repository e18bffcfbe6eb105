import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAccessError } from '../../../cli/file-access-error.js';
import { readRegularTextFile } from '../../../cli/read-regular-text-file.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-read-text-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readRegularTextFile', () => {
  it('says a file over the cap is too large, counted while reading, not a closed descriptor', async () => {
    const path = join(dir, 'big.csv');
    // Several stream chunks (64 KiB each), so the cap is crossed while more bytes are still being read.
    writeFileSync(path, 'phone,name\n'.repeat(40_000));
    const read = readRegularTextFile(path, 'the CSV file', 1_000);
    await expect(read).rejects.toThrow(FileAccessError);
    await expect(readRegularTextFile(path, 'the CSV file', 1_000)).rejects.toThrow(
      `cannot read the CSV file ${path}: it is larger than 1000 bytes`
    );
  });

  it('reads a file within the cap', async () => {
    const path = join(dir, 'small.csv');
    writeFileSync(path, 'phone,name\n+15550100,Ana\n');
    await expect(readRegularTextFile(path, 'the CSV file', 1_000)).resolves.toBe('phone,name\n+15550100,Ana\n');
  });
});
