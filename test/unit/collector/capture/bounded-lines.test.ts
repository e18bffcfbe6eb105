import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type BoundedLine, readBoundedLines } from '../../../../collector/capture/bounded-lines.js';

async function linesOf(chunks: string[], maxLineBytes: number): Promise<BoundedLine[]> {
  const lines: BoundedLine[] = [];
  for await (const line of readBoundedLines(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), maxLineBytes))
    lines.push(line);
  return lines;
}

describe('readBoundedLines', () => {
  it('splits on LF across chunk boundaries, drops a CR before it, and keeps a last line without a break', async () => {
    expect(await linesOf(['ab', 'c\r\nd😂', 'e\n\nlast'], 100)).toEqual([
      { kind: 'line', text: 'abc', bytes: 5 },
      { kind: 'line', text: 'd😂e', bytes: 7 },
      { kind: 'line', text: '', bytes: 1 },
      { kind: 'line', text: 'last', bytes: 4 },
    ]);
  });

  it('reports a line over the limit by its size only, and reads the next line as usual', async () => {
    expect(await linesOf(['ok\n', 'x'.repeat(30), 'x'.repeat(30), '\nnext\n'], 50)).toEqual([
      { kind: 'line', text: 'ok', bytes: 3 },
      { kind: 'oversized', bytes: 61 },
      { kind: 'line', text: 'next', bytes: 5 },
    ]);
  });
});
