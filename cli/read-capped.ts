import type { Readable } from 'node:stream';

/** The errors {@link readCapped} rejects with, in the caller's words. */
export interface CappedReadErrors {
  tooLarge(maxBytes: number): Error;
  failed(err: Error): Error;
}

/**
 * The bytes of `stream`, refused past `maxBytes` while reading: a size the file system or a zip declares is not
 * trusted, so the count is of the bytes that arrive. Past the cap the stream is destroyed, which closes what it
 * reads from: a file is read through its `FileHandle`'s own stream, so the handle knows it is closed.
 */
export function readCapped(stream: Readable, maxBytes: number, errors: CappedReadErrors): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) return void chunks.push(chunk);
      stream.destroy();
      reject(errors.tooLarge(maxBytes));
    });
    stream.on('error', (err: Error) => reject(errors.failed(err)));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
