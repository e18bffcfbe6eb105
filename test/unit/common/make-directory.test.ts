import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectoryNotCreatedError, makeDirectory } from '../../../common/make-directory.js';

describe('makeDirectory', () => {
  const dirs: string[] = [];
  const newDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-mkdir-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('creates every missing level and returns the absolute path; an existing directory is fine', () => {
    const target = join(newDir(), 'a', 'b', 'c');
    expect(makeDirectory(target)).toBe(target);
    expect(statSync(target).isDirectory()).toBe(true);
    expect(makeDirectory(target)).toBe(target);
  });

  it('refuses a path below a file, naming the file', () => {
    const file = join(newDir(), 'plain-file');
    writeFileSync(file, '');
    expect(() => makeDirectory(join(file, 'x'))).toThrow(DirectoryNotCreatedError);
    expect(() => makeDirectory(join(file, 'x'))).toThrow(`${file} exists and is not a directory`);
  });

  it.runIf(existsSync('/proc/self'))('fails at once under /proc, where Node’s recursive mkdir spins forever', () => {
    const failure = (() => {
      try {
        makeDirectory('/proc/nope/deeper');
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(DirectoryNotCreatedError);
    expect((failure as Error).message).toBe('cannot create the directory /proc/nope/deeper');
    expect((failure as Error).cause).toMatchObject({ code: 'ENOENT' });
  });
});
