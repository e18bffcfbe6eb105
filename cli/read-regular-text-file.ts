import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { FileAccessError, toFileAccessError } from './file-access-error.js';
import { readCapped } from './read-capped.js';

/**
 * Reads a text file the user named (`members import <csv>`) as UTF-8, refusing in words what is no text file: a
 * folder, a device (`/dev/zero` never ends) or a pipe (a FIFO blocks until a writer comes), checked before it is
 * opened and again once open (opened without blocking); a file over `maxBytes` (counted while reading); and bytes
 * NUL, which no text file holds (a binary file, or a disk image, given by mistake).
 *
 * @param what - the file as the message names it, e.g. `the CSV file`.
 * @throws FileAccessError naming `path` and why it cannot be read.
 */
export async function readRegularTextFile(path: string, what: string, maxBytes: number): Promise<string> {
  const info = await stat(path).catch((err: unknown) => {
    throw toFileAccessError(err, `read ${what}`, path);
  });
  if (!info.isFile()) throw notRegular(path, what, info.isDirectory());
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: unknown) => {
    throw toFileAccessError(err, `read ${what}`, path);
  });
  let bytes: Buffer;
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegular(path, what, opened.isDirectory());
    bytes = await readCapped(handle.createReadStream({ autoClose: false }), maxBytes, {
      tooLarge: (max) => new FileAccessError(`cannot read ${what} ${path}: it is larger than ${String(max)} bytes`),
      failed: (err) => new FileAccessError(`cannot read ${what} ${path}: ${err.message}`),
    });
  } finally {
    await handle.close();
  }
  if (bytes.includes(0)) {
    throw new FileAccessError(`cannot read ${what} ${path}: it holds NUL bytes, so it is no text file`);
  }
  return bytes.toString('utf8');
}

function notRegular(path: string, what: string, isFolder: boolean): FileAccessError {
  const reason = isFolder ? 'it is a folder, not a file' : 'it is no regular file (a device, a pipe or a socket)';
  return new FileAccessError(`cannot read ${what} ${path}: ${reason}`);
}
