import { type Dirent, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A file of the first collector's trail: `<event>/<YYYY-MM-DD>.json` (also `.jsonl`, `.ndjson`). Only these are
 * read from a folder, so a data folder's `collector-status.json` or a report is never taken for a capture.
 */
export const TRAIL_FILE = /^\d{4}-\d{2}-\d{2}\.(json|jsonl|ndjson)$/i;

/** Folders of a trail are `logs/<event>/`: no deeper than this below the folder given. */
const MAX_TRAIL_DEPTH = 3;

/**
 * The trail files under `folder` (`<event>/<YYYY-MM-DD>.json`, at most {@link MAX_TRAIL_DEPTH} folders down), in
 * no particular order. Files directly in `folder` are never trail files: a trail file sits in its event's folder.
 */
export async function listTrailFiles(folder: string, depth = 0): Promise<string[]> {
  const files: string[] = [];
  const entries: Dirent[] = await readdir(folder, { withFileTypes: true });
  for (const entry of entries) {
    const child = join(folder, entry.name);
    if (entry.isDirectory() && depth < MAX_TRAIL_DEPTH) files.push(...(await listTrailFiles(child, depth + 1)));
    else if (depth > 0 && entry.isFile() && TRAIL_FILE.test(entry.name)) files.push(child);
  }
  return files;
}

/**
 * Says why `path` cannot be replayed, before anything (an outbox) is opened for it: it does not exist, it is a
 * device, a pipe or a socket (a read of `/dev/zero` never ends, one of a FIFO blocks until a writer comes), or it
 * is a folder that holds no first-collector trail (`<event>/<YYYY-MM-DD>.json`): a data folder, the checkout.
 * Source: architecture.md §10 (`wa-lake replay`).
 *
 * @returns one sentence for the user, or null when `path` is a regular file or a trail folder.
 */
export async function describeUnreadableCapture(path: string): Promise<string | null> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `no capture at ${path}`;
    return `cannot read the capture ${path}: ${code ?? String(err)}`;
  }
  if (info.isFile()) return null;
  if (info.isDirectory()) {
    const files = await listTrailFiles(path).catch(() => null);
    if (files === null) return `cannot read the folder ${path}`;
    if (files.length > 0) return null;
    return (
      `${path} is a folder without a first-collector trail in it (<event>/<YYYY-MM-DD>.json files): ` +
      'give the capture file itself (e.g. one written by wa-lake collector --record)'
    );
  }
  return `${path} is no regular file (a device, a pipe or a socket): give a capture file`;
}
