import { stat } from 'node:fs/promises';
import { describeUnreadableCapture, readCapture } from '../../collector/index.js';
import { toFileAccessError } from '../file-access-error.js';

/**
 * Why `capture` cannot feed a stack, said before `demo` or `dev --replay` starts one: it is a folder without a
 * trail, a device or a pipe; or it is read only until its first record and holds none (empty, blank-only or
 * malformed-only). Starting PostgreSQL and Temporal for such a capture proves nothing and, for `demo`, ends in a
 * misleading MISMATCH.
 *
 * @returns null when the capture holds at least one record; otherwise the sentence to print.
 * @throws FileAccessError when `capture` does not exist or cannot be read.
 */
export async function describeUnreplayableCapture(capture: string): Promise<string | null> {
  const info = await stat(capture).catch((err: unknown) => {
    throw toFileAccessError(err, 'read the capture', capture);
  });
  if (!info.isFile()) {
    const unreadable = await describeUnreadableCapture(capture);
    if (unreadable !== null) return unreadable;
  }
  let malformed = 0;
  for await (const item of readCapture(capture)) {
    if (item.kind === 'record') return null;
    if (item.kind === 'malformed') malformed += 1;
  }
  return malformed === 0
    ? `the capture ${capture} holds no events (no non-blank line): nothing to replay`
    : `the capture ${capture} holds no events: each of its ${malformed} lines is malformed`;
}
