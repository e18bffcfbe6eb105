/**
 * Benchmark of capture → outbox (issue #4 item 6): events/s through `EventPipeline` (filter,
 * normalize, event_id, one `synchronous=FULL` transaction per Baileys event) for batches of 1 and of
 * 100, and the process RSS with 100 000 pending rows. Run: `npx tsx bench/collector-outbox.ts`.
 * Targets on the 2-core machine: ≥ 30 000 events/s in batches of 100, RSS ≤ 250 MB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRootLogger } from '../common/logger.js';
import { filterEvent } from '../collector/edge-filter.js';
import { EventPipeline } from '../collector/event-pipeline.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../collector/normalize/prepare-item.js';
import { OutboxStore } from '../collector/outbox-store.js';

const GROUP = '120363000000000001@g.us';
const MIB = 1024 * 1024;

/** A realistic live group message: LID participant, Long-like timestamp, bytes in context info. */
function message(sequence: number): Record<string, unknown> {
  return {
    key: {
      remoteJid: GROUP,
      fromMe: false,
      id: `3EB0${sequence.toString(16).toUpperCase().padStart(20, '0')}`,
      participant: '100000000000001@lid',
      participantAlt: '5500000000001@s.whatsapp.net',
      addressingMode: 'lid',
    },
    messageTimestamp: { low: 1_700_000_000 + sequence, high: 0, unsigned: true },
    pushName: 'Member A',
    broadcast: false,
    message: {
      extendedTextMessage: {
        text: `benchmark message number ${sequence} with some ordinary text in it`,
        contextInfo: { expiration: 0 },
      },
      messageContextInfo: { messageSecret: Buffer.alloc(32, sequence % 251) },
    },
  };
}

function withPipeline<T>(run: (pipeline: EventPipeline, outbox: OutboxStore) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-'));
  const outbox = OutboxStore.open({ path: join(dir, 'outbox.sqlite') });
  try {
    const pipeline = new EventPipeline({
      outbox,
      logger: createRootLogger({ level: 'silent' }),
      getSelfJid: () => null,
    });
    return run(pipeline, outbox);
  } finally {
    outbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const upsertBatch = (first: number, size: number) => ({
  type: 'notify',
  messages: Array.from({ length: size }, (_, i) => message(first + i)),
});

/** Feeds `events` messages in batches of `batchSize` (built before the clock starts); @returns events per second. */
function measureThroughput(pipeline: EventPipeline, firstSequence: number, events: number, batchSize: number): number {
  const batches = Array.from({ length: Math.ceil(events / batchSize) }, (_, b) =>
    upsertBatch(firstSequence + b * batchSize, batchSize)
  );
  const started = process.hrtime.bigint();
  for (const data of batches) pipeline.handle('messages.upsert', data, new Date());
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  return Math.round((batches.length * batchSize) / elapsedS);
}

/** CPU side only (filter, normalize, event_id, body), without SQLite; @returns events per second. */
function measurePrepareOnly(events: number): number {
  const data = upsertBatch(5_000_000, events);
  const started = process.hrtime.bigint();
  for (const kept of filterEvent('messages.upsert', data).kept)
    prepareItem(kept, new Date().toISOString(), null, DEFAULT_BODY_LIMITS);
  return Math.round(events / (Number(process.hrtime.bigint() - started) / 1e9));
}

/**
 * Runs the benchmark on temp files and returns the figures: `rssMbWith100kPending` (measured first,
 * batches built on the fly, so only the collector's own state is resident), `pendingRows`,
 * `claimDueNoneDueMsWith100kPending` (one sender poll while every row backs off),
 * `batch1EventsPerS`, `batch100EventsPerS` (synchronous=FULL) and `prepareOnlyEventsPerS` (no SQLite).
 */
export function runCollectorOutboxBench(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  withPipeline((pipeline, outbox) => {
    for (let first = 0; first < 100_000; first += 100)
      pipeline.handle('messages.upsert', upsertBatch(10_000_000 + first, 100), new Date());
    results.pendingRows = outbox.countByState().pending;
    outbox.oldestPendingCreatedAt();
    outbox.claimDue(100, Date.now());
    results.rssMbWith100kPending = Math.round(process.memoryUsage().rss / MIB);
    const started = process.hrtime.bigint();
    outbox.claimDue(100, 0); // every row is pending but none is due yet (all backing off)
    results.claimDueNoneDueMsWith100kPending = Number(process.hrtime.bigint() - started) / 1e6;
  });
  withPipeline((pipeline) => {
    measureThroughput(pipeline, 0, 2_000, 100); // warm-up: JIT and statement cache
    results.batch1EventsPerS = measureThroughput(pipeline, 1_000_000, 3_000, 1);
    results.batch100EventsPerS = measureThroughput(pipeline, 2_000_000, 30_000, 100);
  });
  results.prepareOnlyEventsPerS = measurePrepareOnly(20_000);
  return Promise.resolve(results);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await runCollectorOutboxBench();
  process.stdout.write(`collector outbox benchmark (synchronous=FULL, temp file)\n`);
  for (const [name, value] of Object.entries(results)) process.stdout.write(`  ${name.padEnd(24)} ${value}\n`);
}
