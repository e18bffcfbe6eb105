import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatCaptureLine } from '../../../collector/capture/capture-line.js';
import { type CaptureItem, MAX_CAPTURE_LINE_BYTES, readCapture } from '../../../collector/capture/capture-reader.js';

// ADR 0014 decision 8: a capture line over about 512 MB crashed replay with a stack trace and the lines after it
// were never read. Here the default limit (128 MiB) is crossed by 1 MiB, without holding the line in memory.
const dir = mkdtempSync(join(tmpdir(), 'wa-lake-oversized-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readCapture with a line over the limit', () => {
  it('reports it as malformed with its line number and size, and reads the lines after it', async () => {
    const file = join(dir, 'capture.jsonl');
    const out = createWriteStream(file);
    const at = new Date('2025-06-01T10:00:00.000Z');
    out.write(`${formatCaptureLine('messages.upsert', { n: 1 }, at)}\n`);
    const chunk = 'x'.repeat(1024 * 1024);
    out.write('{"captured_at":"2025-06-01T10:00:01.000Z","event":"messages.upsert","data":"');
    for (let mib = 0; mib < MAX_CAPTURE_LINE_BYTES / chunk.length + 1; mib++) {
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.write('"}\n');
    out.end(`${formatCaptureLine('messages.upsert', { n: 3 }, new Date(at.getTime() + 2000))}\n`);
    await once(out, 'finish');

    const items: CaptureItem[] = [];
    for await (const item of readCapture(file)) items.push(item);

    expect(items.map((item) => item.kind)).toEqual(['record', 'malformed', 'record']);
    const malformed = items[1];
    expect(malformed).toMatchObject({ kind: 'malformed', file, lineNumber: 2 });
    expect(malformed?.kind === 'malformed' ? malformed.reason : '').toMatch(
      new RegExp(`^line of \\d+ bytes is over the ${MAX_CAPTURE_LINE_BYTES} bytes a capture line may have; skipped$`)
    );
    expect(items[2]?.kind === 'record' ? items[2].record.data : null).toEqual({ n: 3 });
  }, 120_000);
});
