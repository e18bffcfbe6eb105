import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { type BoundedLine, readBoundedLines } from './bounded-lines.js';
import { listTrailFiles } from './capture-path.js';
import { parseCaptureLine, type CaptureRecord } from './capture-line.js';

/**
 * One line read from a capture: a record, a malformed line (counted, never fatal) or a blank line
 * (yielded too, so a replay can account for every line of the file).
 */
export type CaptureItem =
  | { kind: 'record'; record: CaptureRecord }
  | { kind: 'malformed'; file: string; lineNumber: number; reason: string }
  | { kind: 'blank'; file: string; lineNumber: number };

/** Progress of a read; `etaMs` is null until enough has been read to estimate. Sizes in bytes. */
export interface CaptureProgress {
  bytesRead: number;
  totalBytes: number;
  /** Non-blank lines read (records and malformed lines), as the replay summary counts them. */
  lines: number;
  /** Blank lines read (skipped). */
  blankLines: number;
  elapsedMs: number;
  etaMs: number | null;
}

/** Options of {@link readCapture}. */
export interface ReadCaptureOptions {
  /** Called every `progressEveryLines` non-blank lines and once at the end. */
  onProgress?: (progress: CaptureProgress) => void;
  progressEveryLines?: number;
  now?: () => number;
  /** Longest line read; a longer one is reported as malformed with its line number and skipped (ADR 0014). */
  maxLineBytes?: number;
}

/** Longest capture line read by default: far above any event the outbox keeps, far below V8's longest string. */
export const MAX_CAPTURE_LINE_BYTES = 128 * 1024 * 1024;

interface LineSource {
  file: string;
  lines: AsyncIterator<BoundedLine>;
  lineNumber: number;
  maxLineBytes: number;
  head: CaptureItem | null;
  /** ms epoch of `head`; malformed and blank lines sort first so they are reported at once. */
  headTimeMs: number;
}

/**
 * The files to read: `path` itself when it is a regular file, the trail files of a folder.
 * @throws Error when `path` is neither (a device or a pipe would never end or block the read).
 */
async function listFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return [path];
  if (info.isDirectory()) return listTrailFiles(path);
  throw new Error(`${path} is no regular file (a device, a pipe or a socket): give a capture file`);
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

async function advance(source: LineSource, onLine: (bytes: number, isBlank: boolean) => void): Promise<void> {
  const next = await source.lines.next();
  if (next.done === true) {
    source.head = null;
    return;
  }
  source.lineNumber++;
  const line = next.value;
  if (line.kind === 'oversized') {
    onLine(line.bytes, false);
    source.head = {
      kind: 'malformed',
      file: source.file,
      lineNumber: source.lineNumber,
      reason: `line of ${line.bytes} bytes is over the ${source.maxLineBytes} bytes a capture line may have; skipped`,
    };
    source.headTimeMs = Number.NEGATIVE_INFINITY;
    return;
  }
  const parsed = parseCaptureLine(line.text);
  onLine(line.bytes, parsed.kind === 'blank');
  if (parsed.kind === 'record') {
    source.head = parsed;
    source.headTimeMs = parsed.record.capturedAt.getTime();
    return;
  }
  source.head =
    parsed.kind === 'blank'
      ? { kind: 'blank', file: source.file, lineNumber: source.lineNumber }
      : { kind: 'malformed', file: source.file, lineNumber: source.lineNumber, reason: parsed.reason };
  source.headTimeMs = Number.NEGATIVE_INFINITY;
}

/**
 * Reads a capture: one file in our format or the first collector's NDJSON trail, or a folder of
 * such files (the trail's `logs/<event>/<YYYY-MM-DD>.json` layout; no other file of a folder is read). Files of one date are merged in
 * timestamp order (each file is assumed ordered, as written); dates follow each other in name order.
 * Reports progress with an ETA from bytes read. Source: architecture.md §10.
 *
 * @throws the `fs` error when `path` does not exist or cannot be read; Error when it is no file and no folder.
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
  let blankLines = 0;
  const report = (): void => {
    const elapsedMs = now() - startedAt;
    const etaMs =
      bytesRead > 0 && elapsedMs > 0
        ? Math.max(0, Math.round((elapsedMs * (totalBytes - bytesRead)) / bytesRead))
        : null;
    options.onProgress?.({
      bytesRead: Math.min(bytesRead, totalBytes),
      totalBytes,
      lines,
      blankLines,
      elapsedMs,
      etaMs,
    });
  };
  const onLine = (bytes: number, isBlank: boolean): void => {
    bytesRead += bytes;
    if (isBlank) {
      blankLines++;
      return;
    }
    lines++;
    if (lines % every === 0) report();
  };
  for (const group of groupByName(files)) {
    const sources: LineSource[] = group.map((file) => ({
      file,
      lines: readBoundedLines(createReadStream(file), options.maxLineBytes ?? MAX_CAPTURE_LINE_BYTES),
      maxLineBytes: options.maxLineBytes ?? MAX_CAPTURE_LINE_BYTES,
      lineNumber: 0,
      head: null,
      headTimeMs: 0,
    }));
    try {
      for (const source of sources) await advance(source, onLine);
      for (;;) {
        let earliest: LineSource | null = null;
        for (const source of sources) {
          if (source.head !== null && (earliest === null || source.headTimeMs < earliest.headTimeMs)) earliest = source;
        }
        if (earliest === null || earliest.head === null) break;
        yield earliest.head;
        await advance(earliest, onLine);
      }
    } finally {
      // Closes the streams when the consumer stops early.
      for (const source of sources) await source.lines.return?.();
    }
  }
  report();
}
