/**
 * Benchmark of capture → outbox: events/s through `EventPipeline` (filter,
 * normalize, event_id, one `synchronous=FULL` transaction per Baileys event) for batches of 1 and of
 * 100, and the process RSS with 100 000 pending rows. Run: `npx tsx bench/collector-outbox.ts`.
 * Targets on the 2-core machine: ≥ 30 000 events/s in batches of 100, RSS ≤ 250 MB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRootLogger } from '../common/logger.js';
import { filterEvent } from '../collector/edge-filter.js';
import { EventPipeline } from '../collector/event-pipeline.js';
import { proto } from '../collector/normalize/baileys-helpers.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../collector/prepare-item.js';
import { OutboxStore } from '../collector/outbox-store.js';

const GROUP = '120363000000000001@g.us';
const MIB = 1024 * 1024;

const PARTICIPANTS = ['100000000000001', '100000000000002', '100000000000003', '100000000000004'];
const TEXTS = [
  'ok',
  'bom dia, pessoal! 🌞',
  'alguém sabe se a reunião de amanhã continua às 19h?',
  'Segue o link da planilha com as contribuições do mês, conferi tudo e só falta a parte de março 📎',
  'kkkkkk',
  'Obrigada! ❤️ Vou repassar para a coordenação ainda hoje e aviso aqui no grupo quando tiver resposta.',
];

/**
 * A live group message as Baileys rc14's `decodeMessageNode` builds it (sample 01's shape): a plain
 * envelope with a LID participant, its phone alias and undefined keys, a numeric timestamp, and
 * `message` a protobufjs `proto.Message` instance (bytes as Buffer, repeated fields as own `[]`).
 * Every fourth message is an extended text with a mention and a quote; texts vary in length and script.
 */
function message(sequence: number): Record<string, unknown> {
  const participant = PARTICIPANTS[sequence % PARTICIPANTS.length] ?? '';
  const text = `${TEXTS[sequence % TEXTS.length] ?? ''} #${sequence}`;
  const content =
    sequence % 4 === 3
      ? {
          extendedTextMessage: {
            text: `@${PARTICIPANTS[0]} ${text}`,
            contextInfo: {
              mentionedJid: [`${PARTICIPANTS[0]}@lid`],
              stanzaId: `3EB0${(sequence - 1).toString(16).toUpperCase().padStart(20, '0')}`,
              participant: `${PARTICIPANTS[1]}@lid`,
              quotedMessage: { conversation: TEXTS[1] },
            },
          },
        }
      : { conversation: text };
  // Decoded from the wire like live content: `decode` output is what normalization really walks
  // (its instances are markedly slower to read than `fromObject` ones, so the bench must not shortcut it).
  const decoded = proto.Message.decode(
    proto.Message.encode(
      proto.Message.fromObject({
        ...content,
        messageContextInfo: { messageSecret: Buffer.alloc(32, sequence % 251), deviceListMetadataVersion: 2 },
      })
    ).finish()
  );
  return {
    key: {
      remoteJid: GROUP,
      remoteJidAlt: undefined,
      remoteJidUsername: undefined,
      fromMe: false,
      id: `3EB0${sequence.toString(16).toUpperCase().padStart(20, '0')}`,
      participant: `${participant}@lid`,
      participantAlt: `55${participant.slice(-11)}@s.whatsapp.net`,
      participantUsername: undefined,
      addressingMode: 'lid',
    },
    category: undefined,
    messageTimestamp: 1_700_000_000 + sequence,
    pushName: `Member ${sequence % PARTICIPANTS.length}`,
    broadcast: false,
    message: decoded,
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
 * Runs the benchmark on temp files and returns the figures: `rssMbWith100kPending` (after a full GC when
 * node runs with --expose-gc; `rssMbBeforeGcWith100kPending` is the figure before it; measured first,
 * batches built on the fly, so only the collector's own state is resident), `pendingRows`,
 * `listDueNoneDueMsWith100kPending` (one outbox relay poll while every row backs off),
 * `batch1EventsPerS`, `batch100EventsPerS` (synchronous=FULL) and `prepareOnlyEventsPerS` (no SQLite).
 */
export function runCollectorOutboxBench(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  withPipeline((pipeline, outbox) => {
    for (let first = 0; first < 100_000; first += 100)
      pipeline.handle('messages.upsert', upsertBatch(10_000_000 + first, 100), new Date());
    results.pendingRows = outbox.countByState().pending;
    outbox.oldestPendingCreatedAt();
    outbox.listDue(100, Date.now());
    results.rssMbBeforeGcWith100kPending = Math.round(process.memoryUsage().rss / MIB);
    // `npm run bench` runs this compiled, like the container (tsx alone adds ~100 MB), with --expose-gc.
    (globalThis as { gc?: () => void }).gc?.();
    results.rssMbWith100kPending = Math.round(process.memoryUsage().rss / MIB);
    const started = process.hrtime.bigint();
    outbox.listDue(100, 0); // every row is pending but none is due yet (all backing off)
    results.listDueNoneDueMsWith100kPending = Number(process.hrtime.bigint() - started) / 1e6;
  });
  withPipeline((pipeline) => {
    measureThroughput(pipeline, 0, 2_000, 100); // warm-up: JIT and statement cache
    results.batch1EventsPerS = measureThroughput(pipeline, 1_000_000, 3_000, 1);
    results.batch100EventsPerS = measureThroughput(pipeline, 2_000_000, 30_000, 100);
  });
  results.prepareOnlyEventsPerS = measurePrepareOnly(20_000);
  return Promise.resolve(results);
}

/** A target of the collector outbox on the 2-core machine, printed next to the figure it applies to. */
interface BenchTarget {
  text: string;
  isMet(value: number): boolean;
}

export const COLLECTOR_OUTBOX_TARGETS: Readonly<Record<string, BenchTarget>> = {
  batch100EventsPerS: { text: '≥ 30000', isMet: (value) => value >= 30_000 },
  rssMbWith100kPending: { text: '≤ 250', isMet: (value) => value <= 250 },
};

const formatLoad = (load: number[]): string => load.map((value) => value.toFixed(2)).join(' ');

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const loadBefore = loadavg();
  const results = await runCollectorOutboxBench();
  process.stdout.write(`collector outbox benchmark (synchronous=FULL, temp file)\n`);
  // Other processes share the cores and the disk: the load average says how much the figures are worth.
  process.stdout.write(
    `  load average (1/5/15 min) before ${formatLoad(loadBefore)}, after ${formatLoad(loadavg())}\n`
  );
  for (const [name, value] of Object.entries(results)) {
    const target = COLLECTOR_OUTBOX_TARGETS[name];
    const verdict = target ? `   target ${target.text}: ${target.isMet(value) ? 'met' : 'NOT MET'}` : '';
    process.stdout.write(`  ${name.padEnd(34)} ${String(value).padStart(8)}${verdict}\n`);
  }
}
