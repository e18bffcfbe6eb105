import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseCaptureLine, type CaptureRecord } from './capture-line.js';

/** One item read from a capture: a record, or a malformed line (counted, never fatal). */
export type CaptureItem =
  { kind: 'record'; record: CaptureRecord } | { kind: 'malformed'; file: string; lineNumber: number; reason: string };

/** Progress of a read; `etaMs` is null until enough has been read to estimate. Sizes in bytes. */
export interface CaptureProgress {
  bytesRead: number;
  totalBytes: number;
  lines: number;
  elapsedMs: number;
  etaMs: number | null;
}

/** Options of {@link readCapture}. */
export interface ReadCaptureOptions {
  /** Called every `progressEveryLines` lines and once at the end. */
  onProgress?: (progress: CaptureProgress) => void;
  progressEveryLines?: number;
  now?: () => number;
}

const CAPTURE_FILE = /\.(json|jsonl|ndjson)$/i;

interface LineSource {
  file: string;
  lines: AsyncIterator<string>;
  lineNumber: number;
  head: CaptureItem | null;
  /** ms epoch of `head`; malformed lines sort first so they are reported at once. */
  headTimeMs: number;
}

async function listFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return [path];
  const files: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(child)));
    else if (entry.isFile() && CAPTURE_FILE.test(entry.name)) files.push(child);
  }
  return files;
}

/**
 * Groups files by name (`logs/<event>/<date>.json` → one group per date), in name order, so a
 * folder trail is merged day by day across event folders without opening every file at once.
 */
function groupByName(files: string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const file of files) {
    const key = basename(file);
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  return [...groups.keys()].sort().map((key) => groups.get(key) ?? []);
}

async function advance(source: LineSource, onBytes: (bytes: number) => void): Promise<void> {
  for (;;) {
    const next = await source.lines.next();
    if (next.done === true) {
      source.head = null;
      return;
    }
    source.lineNumber++;
    onBytes(Buffer.byteLength(next.value) + 1);
    const parsed = parseCaptureLine(next.value);
    if (parsed.kind === 'blank') continue;
    if (parsed.kind === 'malformed') {
      source.head = { kind: 'malformed', file: source.file, lineNumber: source.lineNumber, reason: parsed.reason };
      source.headTimeMs = Number.NEGATIVE_INFINITY;
    } else {
      source.head = parsed;
      source.headTimeMs = parsed.record.capturedAt.getTime();
    }
    return;
  }
}

/**
 * Reads a capture: one file in our format or the first collector's NDJSON trail, or a folder of
 * such files (the trail's `logs/<event>/<date>.json` layout). Files of one date are merged in
 * timestamp order (each file is assumed ordered, as written); dates follow each other in name order.
 * Reports progress with an ETA from bytes read. Source: architecture.md §10, issue #4 item 5.
 *
 * @throws the `fs` error when `path` does not exist or cannot be read.
 */
export async function* readCapture(path: string, options: ReadCaptureOptions = {}): AsyncGenerator<CaptureItem> {
  const now = options.now ?? Date.now;
  const every = options.progressEveryLines ?? 10_000;
  const files = await listFiles(path);
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  const totalBytes = sizes.reduce((sum, size) => sum + size, 0);
  const startedAt = now();
  let bytesRead = 0;
  let lines = 0;
  const report = (): void => {
    const elapsedMs = now() - startedAt;
    const etaMs =
      bytesRead > 0 && elapsedMs > 0
        ? Math.max(0, Math.round((elapsedMs * (totalBytes - bytesRead)) / bytesRead))
        : null;
    options.onProgress?.({ bytesRead: Math.min(bytesRead, totalBytes), totalBytes, lines, elapsedMs, etaMs });
  };
  const onBytes = (bytes: number): void => {
    bytesRead += bytes;
    lines++;
    if (lines % every === 0) report();
  };
  for (const group of groupByName(files)) {
    const sources: LineSource[] = group.map((file) => ({
      file,
      lines: createInterface({ input: createReadStream(file), crlfDelay: Infinity })[Symbol.asyncIterator](),
      lineNumber: 0,
      head: null,
      headTimeMs: 0,
    }));
    try {
      for (const source of sources) await advance(source, onBytes);
      for (;;) {
        let earliest: LineSource | null = null;
        for (const source of sources) {
          if (source.head !== null && (earliest === null || source.headTimeMs < earliest.headTimeMs)) earliest = source;
        }
        if (earliest === null || earliest.head === null) break;
        yield earliest.head;
        await advance(earliest, onBytes);
      }
    } finally {
      // Closes the streams when the consumer stops early.
      for (const source of sources) await source.lines.return?.();
    }
  }
  report();
}
