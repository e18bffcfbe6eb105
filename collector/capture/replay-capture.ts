import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EventPipeline } from '../event-pipeline.js';
import { readCapture, type CaptureProgress } from './capture-reader.js';

/**
 * What a replay did. Every line of the capture is counted once:
 * `lines = records + malformedLines`, `records = records with items + recordsWithoutItems`, and blank
 * lines apart in `blankLines`; `lines` and `blankLines` equal the last progress report's. `eventIds`
 * holds every kept item's event_id (new or already in the outbox).
 */
export interface ReplaySummary {
  /** Non-blank lines read (records plus malformed lines). */
  lines: number;
  /** Well-formed lines handed to the pipeline. */
  records: number;
  /** Records whose event carries no item at all (`data: null`, `messages: []`): nothing to keep or drop. */
  recordsWithoutItems: number;
  /** Blank lines skipped. */
  blankLines: number;
  /** Items after fan-out (kept + dropped). */
  items: number;
  /** Items kept by the edge filter: `kept = inserted + duplicates + dead`, each counted once. */
  kept: number;
  /** Dropped items by reason, as the pipeline reports them. */
  dropped: Record<string, number>;
  /** `pending` rows written. */
  inserted: number;
  /** Kept items whose `event_id` was already in the outbox (any state, `dead` included): nothing written. */
  duplicates: number;
  /** `dead` rows written by this replay (a repeated over-size item counts once, then as a duplicate). */
  dead: number;
  eventIds: Set<string>;
  malformedLines: number;
}

/** Options of {@link replayCapture}. */
export interface ReplayCaptureOptions {
  /** A capture file (ours or the first collector's trail) or a trail folder. */
  path: string;
  /** The same pipeline a live session uses (filter → normalize → event_id → outbox). */
  pipeline: Pick<EventPipeline, 'handle'>;
  onProgress?: (progress: CaptureProgress) => void;
  /** Called for each malformed line (file, 1-based line number, reason); never fatal. */
  onMalformedLine?: (info: { file: string; lineNumber: number; reason: string }) => void;
  progressEveryLines?: number;
  /** Yield to the event loop every N records so the outbox relay and timers keep running (default 200). */
  yieldEveryRecords?: number;
  /** Stops reading at the next record; the summary then covers what was read. */
  signal?: AbortSignal;
}

/**
 * Feeds a capture through the same `EventPipeline.handle(event, data, capturedAt)` as a live session,
 * with each record's own capture time. Malformed lines are counted and reported, never fatal. As
 * the outbox inserts with `INSERT OR IGNORE` on event_id, replaying the same capture twice adds
 * nothing (the second run reports every kept item as a duplicate). Source: architecture.md §10.
 *
 * @throws the `fs` error when `path` cannot be read; errors thrown by the pipeline (outbox I/O).
 */
export async function replayCapture(options: ReplayCaptureOptions): Promise<ReplaySummary> {
  const summary: ReplaySummary = {
    lines: 0,
    records: 0,
    recordsWithoutItems: 0,
    blankLines: 0,
    items: 0,
    kept: 0,
    dropped: {},
    inserted: 0,
    duplicates: 0,
    dead: 0,
    eventIds: new Set(),
    malformedLines: 0,
  };
  const yieldEvery = options.yieldEveryRecords ?? 200;
  const reader = readCapture(options.path, {
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.progressEveryLines !== undefined ? { progressEveryLines: options.progressEveryLines } : {}),
  });
  for await (const item of reader) {
    if (options.signal?.aborted === true) break;
    if (item.kind === 'blank') {
      summary.blankLines++;
      continue;
    }
    summary.lines++;
    if (item.kind === 'malformed') {
      summary.malformedLines++;
      options.onMalformedLine?.({ file: item.file, lineNumber: item.lineNumber, reason: item.reason });
      continue;
    }
    summary.records++;
    const outcome = options.pipeline.handle(item.record.event, item.record.data, item.record.capturedAt);
    if (outcome.items === 0) summary.recordsWithoutItems++;
    summary.items += outcome.items;
    summary.kept += outcome.kept;
    summary.inserted += outcome.inserted;
    summary.duplicates += outcome.duplicates;
    summary.dead += outcome.dead;
    for (const [reason, count] of Object.entries(outcome.dropped))
      summary.dropped[reason] = (summary.dropped[reason] ?? 0) + count;
    for (const eventId of outcome.eventIds) summary.eventIds.add(eventId);
    if (summary.lines % yieldEvery === 0) await yieldToEventLoop();
  }
  return summary;
}
