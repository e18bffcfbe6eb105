import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChatExportFile, UnusableChatExportError } from '../../../../cli/import-export/read-chat-export-file.js';
import { FileAccessError } from '../../../../cli/file-access-error.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/chat-exports/', import.meta.url));
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-export-file-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readChatExportFile: files that are no export', () => {
  it('refuses a link to a device before reading a byte of it', async () => {
    const path = join(dir, 'zero.txt');
    symlinkSync('/dev/zero', path);
    await expect(readChatExportFile(path)).rejects.toThrow(UnusableChatExportError);
    await expect(readChatExportFile(path)).rejects.toThrow('is no regular file');
  });

  it('refuses a named pipe instead of waiting for a writer', async () => {
    const path = join(dir, 'pipe.txt');
    execFileSync('mkfifo', [path]);
    await expect(readChatExportFile(path)).rejects.toThrow('is no regular file');
  });

  it('says a folder named like an export is a folder', async () => {
    const path = join(dir, 'folder.txt');
    mkdirSync(path);
    await expect(readChatExportFile(path)).rejects.toThrow(FileAccessError);
    await expect(readChatExportFile(path)).rejects.toThrow(`cannot read the export ${path}: it is a folder`);
  });

  it('says a folder or a device is one, whatever its name, before asking for .txt or .zip', async () => {
    const folder = join(dir, 'exports');
    mkdirSync(folder);
    await expect(readChatExportFile(folder)).rejects.toThrow(
      `cannot read the export ${folder}: it is a folder, not a file`
    );
    await expect(readChatExportFile('/dev/null')).rejects.toThrow('is no regular file');
  });

  it.each(['missing.txt', 'missing.zip'])('words a missing %s the same way', async (name) => {
    const path = join(dir, name);
    await expect(readChatExportFile(path)).rejects.toThrow(
      `cannot read the export ${path}: there is no such file or folder`
    );
  });

  it('refuses UTF-16 text, which would read as no message at all', async () => {
    const path = join(dir, 'utf16.txt');
    writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('1/2/25 10:00 - Ana: a\n', 'utf16le')]));
    await expect(readChatExportFile(path)).rejects.toThrow('is UTF-16 text');
  });

  it('names the zip entry whose header lies about its size', async () => {
    const path = join(FIXTURES, 'sizes-lie.zip');
    await expect(readChatExportFile(path)).rejects.toThrow(`${path}: _chat.txt: too many bytes in the stream`);
  });
});
