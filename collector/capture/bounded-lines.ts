import type { Readable } from 'node:stream';

/** One line of a file: its text (without the line break), or only its size when it was over the limit. */
export type BoundedLine = { kind: 'line'; text: string; bytes: number } | { kind: 'oversized'; bytes: number };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into lines (`\n`, with a `\r` before it dropped) without ever holding more than
 * `maxLineBytes` of one line (ADR 0014 decision 8): a longer line is read to its end and discarded, and reported
 * as `oversized` with its size, so the next line is read as usual. `readline` kept the whole line and a line of
 * 512 MB crashed the replay past V8's longest string. `bytes` counts the line break.
 */
export async function* readBoundedLines(stream: Readable, maxLineBytes: number): AsyncGenerator<BoundedLine> {
  let pieces: Buffer[] = [];
  let length = 0;
  let isOversized = false;
  const finish = (withBreak: boolean): BoundedLine => {
    const bytes = length + (withBreak ? 1 : 0);
    if (isOversized) return { kind: 'oversized', bytes };
    let line = Buffer.concat(pieces, length);
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    return { kind: 'line', text: line.toString('utf8'), bytes };
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE); index !== -1; index = chunk.indexOf(NEWLINE, start)) {
      append(chunk.subarray(start, index));
      yield finish(true);
      pieces = [];
      length = 0;
      isOversized = false;
      start = index + 1;
    }
    append(chunk.subarray(start));
  }
  if (length > 0 || isOversized) yield finish(false);

  function append(piece: Buffer): void {
    length += piece.length;
    if (isOversized) return;
    if (length > maxLineBytes) {
      isOversized = true;
      pieces = [];
      return;
    }
    if (piece.length > 0) pieces.push(piece);
  }
}
