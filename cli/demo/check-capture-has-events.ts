import { readCapture } from '../../collector/index.js';

/**
 * Reads `capture` (file or trail folder) only until its first record, before the demo starts the stack:
 * an empty, blank-only or malformed-only capture can prove nothing, and starting PostgreSQL and Temporal
 * for it only to print a MISMATCH misleads.
 *
 * @returns null when the capture holds at least one record; otherwise the sentence to print.
 * @throws the `fs` error when `capture` does not exist or cannot be read.
 */
export async function describeCaptureWithoutEvents(capture: string): Promise<string | null> {
  let malformed = 0;
  for await (const item of readCapture(capture)) {
    if (item.kind === 'record') return null;
    if (item.kind === 'malformed') malformed += 1;
  }
  return malformed === 0
    ? `the capture ${capture} holds no events (no non-blank line): nothing to replay`
    : `the capture ${capture} holds no events: each of its ${malformed} lines is malformed`;
}
