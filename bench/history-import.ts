/**
 * Benchmark of a history import through the collector (issue #29 item 5): events/s from a `messaging-history.set`
 * (Baileys' own `processHistoryMessage` over an encoded `HistorySync`, 1 000 messages per push) into the outbox,
 * beside the same messages as live `messages.upsert` batches of 100, same run, same outbox settings. The history
 * path must not be slower per event; the rest of the path (one workflow per event) is the live path's.
 * Run: `npx tsx bench/history-import.ts [events]` (default 20 000; keep runs short on the shared machine).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processHistoryMessage, proto } from '@whiskeysockets/baileys';
import { EventPipeline } from '../collector/event-pipeline.js';
import { OutboxStore } from '../collector/outbox-store.js';
import { createRootLogger } from '../common/logger.js';

const GROUP = '120363000000000001@g.us';
const PUSH_SIZE = 1000;

const message = (sequence: number, prefix: string): Record<string, unknown> => ({
  key: {
    remoteJid: GROUP,
    fromMe: false,
    id: `${prefix}${String(sequence).padStart(12, '0')}`,
    participant: `10000000000000${sequence % 7}@lid`,
  },
  messageTimestamp: 1_760_000_000 + sequence,
  message: { conversation: `bom dia, pessoal! 🌞 #${sequence}` },
});

function openPipeline(): { pipeline: EventPipeline; outbox: OutboxStore; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'wa-lake-history-bench-'));
  const outbox = OutboxStore.open({ path: join(dir, 'outbox.sqlite') });
  const pipeline = new EventPipeline({ outbox, logger: createRootLogger({ level: 'silent' }), getSelfJid: () => null });
  return { pipeline, outbox, done: () => (outbox.close(), rmSync(dir, { recursive: true, force: true })) };
}

function historyRun(events: number): number {
  const pushes = Array.from({ length: Math.ceil(events / PUSH_SIZE) }, (_, p) => {
    const messages = Array.from({ length: PUSH_SIZE }, (_, i) => ({ message: message(p * PUSH_SIZE + i, 'H') }));
    const sync = proto.HistorySync.encode({ syncType: 3, conversations: [{ id: GROUP, messages }] }).finish();
    return { ...processHistoryMessage(proto.HistorySync.decode(sync)), isLatest: true };
  });
  const { pipeline, done } = openPipeline();
  const start = performance.now();
  for (const push of pushes) pipeline.handle('messaging-history.set', push, new Date());
  const ms = performance.now() - start;
  done();
  return ms;
}

function liveRun(events: number): number {
  const batches = Array.from({ length: Math.ceil(events / 100) }, (_, b) =>
    Array.from({ length: 100 }, (_, i) =>
      proto.WebMessageInfo.decode(
        proto.WebMessageInfo.encode(proto.WebMessageInfo.fromObject(message(b * 100 + i, 'L'))).finish()
      )
    )
  );
  const { pipeline, done } = openPipeline();
  const start = performance.now();
  for (const messages of batches) pipeline.handle('messages.upsert', { type: 'notify', messages }, new Date());
  const ms = performance.now() - start;
  done();
  return ms;
}

const events = Number(process.argv[2] ?? 20_000);
const live = liveRun(events);
const history = historyRun(events);
const rate = (ms: number): number => Math.round((events / ms) * 1000);
process.stdout.write(
  `${JSON.stringify({ events, liveEventsPerSecond: rate(live), historyEventsPerSecond: rate(history), historyToLive: Number((live / history).toFixed(2)), loadavg1: loadavg()[0] })}\n`
);
