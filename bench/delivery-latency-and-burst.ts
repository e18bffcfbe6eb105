/**
 * Benchmark of the delivery path as `wa-lake dev` runs it (ADR 0008): the local stack (Temporal
 * dev server with its state file, embedded PostgreSQL, ingest API, worker) plus the collector's own
 * path — `EventPipeline` → SQLite outbox → `OutboxRelay` (woken by the enqueue, eager start over the
 * worker's connection) → `deliverEvent` → ingest → PostgreSQL. Only WhatsApp is replaced: the bench calls
 * `pipeline.handle('messages.upsert', …)` as the Baileys callback would. Prints, in one run:
 *   1. latency capture → lake commit (`whatsapp_event_logs.created_at − captured_at`) at a steady rate;
 *   2. burst: N distinct events (+30 % re-emits) in history-sync batches, events/s until all are in the lake;
 *   3. the dev server's ceiling in the same run: a trivial workflow with one regular no-op activity,
 *      started with the outbox relay's concurrency, on a worker with the delivery worker's options;
 *   4. history events per delivered event (real histories) and the trivial workflow's.
 * Run: `npx tsx bench/delivery-latency-and-burst.ts [--rate 20] [--seconds 60] [--burst 5000]`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import type pg from 'pg';
import type { EventPipeline } from '../collector/event-pipeline.js';
import { DELIVERY_WORKER_TUNING } from '../worker/worker-tuning.js';
import { startBenchDeliveryStack } from './bench-delivery-stack.js';

const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    burst: { type: 'string', default: '5000' },
    'history-sample': { type: 'string', default: '50' },
  },
});
const RATE = Number(flags.rate);
const SECONDS = Number(flags.seconds);
const BURST = Number(flags.burst);
const HISTORY_SAMPLE = Number(flags['history-sample']);
const REEMIT_SHARE = 0.3;
const BURST_BATCH = 100;
const TARGET = { p50Ms: 150, p99Ms: 1_000, burstRatio: 1.5 };
const GROUP = '120363000000000001@g.us';
const BEFORE_FIXTURE = new URL('../test/fixtures/histories/deliver-event-delivered.json', import.meta.url);

function message(id: string) {
  return {
    key: { remoteJid: GROUP, fromMe: false, id, participant: '100000000000001@lid' },
    messageTimestamp: 1748772000,
    message: { conversation: `bench ${id}` },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForLake(pool: pg.Pool, eventIds: string[], timeoutMs: number): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ event_id: string; committed_ms: number }>(
      `SELECT event_id, extract(epoch FROM created_at) * 1000 AS committed_ms
         FROM whatsapp_event_logs WHERE event_id = ANY($1::uuid[])`,
      [eventIds]
    );
    if (rows.length >= eventIds.length) return new Map(rows.map((row) => [row.event_id, Number(row.committed_ms)]));
    if (Date.now() > deadline) throw new Error(`only ${rows.length} of ${eventIds.length} events reached the lake`);
    await sleep(50);
  }
}

async function historyEventTypes(client: Client, workflowId: string): Promise<string> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events
    .map((event) => String(proto.temporal.api.enums.v1.EventType[Number(event.eventType)]).replace('EVENT_TYPE_', ''))
    .join(' ');
}

async function historyEventCount(client: Client, workflowIds: string[]): Promise<number> {
  let total = 0;
  for (const id of workflowIds) total += (await client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
  return total / workflowIds.length;
}

/** Latency phase: one event every 1000/RATE ms for SECONDS s; capture → commit per event. */
async function measureLatency(pipeline: EventPipeline, pool: pg.Pool): Promise<{ sorted: number[]; ids: string[] }> {
  const capturedAt = new Map<string, number>();
  const intervalMs = 1000 / RATE;
  const startedAt = Date.now();
  for (let i = 0; i < RATE * SECONDS; i++) {
    const due = startedAt + i * intervalMs;
    if (due > Date.now()) await sleep(due - Date.now());
    const now = new Date();
    const [eventId] = pipeline.handle(
      'messages.upsert',
      { type: 'notify', messages: [message(`3EB0L${i}${randomUUID().slice(0, 8)}`)] },
      now
    ).eventIds;
    if (eventId) capturedAt.set(eventId, now.getTime());
  }
  const committed = await waitForLake(pool, [...capturedAt.keys()], 120_000);
  const sorted = [...committed].map(([id, ms]) => ms - (capturedAt.get(id) ?? ms)).sort((a, b) => a - b);
  return { sorted, ids: [...capturedAt.keys()] };
}

/** Burst phase: BURST distinct events plus 30 % re-emits, in batches of BURST_BATCH as a history sync. */
async function measureBurst(pipeline: EventPipeline, pool: pg.Pool): Promise<{ seconds: number; ids: string[] }> {
  const distinct = Array.from({ length: BURST }, (_, i) => `3EB0B${i}${randomUUID().slice(0, 8)}`);
  const reemits = Array.from(
    { length: Math.round(BURST * REEMIT_SHARE) },
    (_, i) => distinct[(i * 7919) % BURST] ?? ''
  );
  const items = [...distinct, ...reemits].sort(() => Math.random() - 0.5);
  const ids = new Set<string>();
  const startedAt = Date.now();
  for (let first = 0; first < items.length; first += BURST_BATCH) {
    const batch = items.slice(first, first + BURST_BATCH).map(message);
    for (const id of pipeline.handle('messages.upsert', { type: 'append', messages: batch }, new Date()).eventIds)
      ids.add(id);
    await sleep(0); // let the outbox relay and the worker run between batches, as Baileys callbacks would
  }
  await waitForLake(pool, [...ids], 30 * 60_000);
  return { seconds: (Date.now() - startedAt) / 1000, ids: [...ids] };
}

/** Ceiling: BURST trivial workflows (one regular no-op activity), started `concurrency` at a time. */
async function measureCeiling(
  address: string,
  client: Client,
  concurrency: number
): Promise<{ seconds: number; historyEvents: number }> {
  const connection = await NativeConnection.connect({ address });
  const taskQueue = `bench-ceiling-${randomUUID()}`;
  let done = 0;
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: new URL('./trivial-workflow.ts', import.meta.url).pathname,
    activities: { noop: () => Promise.resolve() },
    ...DELIVERY_WORKER_TUNING,
  });
  const ids = Array.from({ length: BURST }, () => `ceiling-${randomUUID()}`);
  let seconds = 0;
  await worker.runUntil(async () => {
    const startedAt = Date.now();
    let next = 0;
    const lane = async (): Promise<void> => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++])
        await client.workflow.start('trivialWorkflow', { taskQueue, workflowId: id, args: [] });
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    // Completion: the last started workflows finish last; wait for every result.
    for (const id of ids) {
      await client.workflow.getHandle(id).result();
      done++;
    }
    seconds = (Date.now() - startedAt) / 1000;
  });
  const historyEvents = await historyEventCount(client, ids.slice(0, HISTORY_SAMPLE));
  await connection.close();
  if (done !== BURST) throw new Error(`ceiling: ${done} of ${BURST} completed`);
  return { seconds, historyEvents };
}

function beforeHistoryEvents(): number {
  const history = JSON.parse(readFileSync(BEFORE_FIXTURE, 'utf8')) as { events?: unknown[] };
  return history.events?.length ?? Number.NaN;
}

async function main(): Promise<void> {
  const bench = await startBenchDeliveryStack('wa-lake-bench-delivery-');
  const { config, stack, pool, pipeline } = bench;
  try {
    const latency = await measureLatency(pipeline, pool);
    const burst = await measureBurst(pipeline, pool);
    const ceiling = await measureCeiling(stack.temporalAddress, stack.temporalClient, config.OUTBOX_RELAY_CONCURRENCY);
    const historyAfter = await historyEventCount(stack.temporalClient, latency.ids.slice(0, HISTORY_SAMPLE));
    const historyBefore = beforeHistoryEvents();
    const p50 = percentile(latency.sorted, 50);
    const p99 = percentile(latency.sorted, 99);
    const burstRate = BURST / burst.seconds;
    const ceilingRate = BURST / ceiling.seconds;
    const fmt = (n: number, digits = 1): string => n.toFixed(digits);
    print(
      `delivery bench — ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`
    );
    print(`latency capture→commit at ${RATE}/s for ${SECONDS} s (${latency.sorted.length} events):`);
    print(`  p50 ${fmt(p50, 0)} ms (target ≤ ${TARGET.p50Ms}, ratio ${fmt(p50 / TARGET.p50Ms, 2)})`);
    print(`  p90 ${fmt(percentile(latency.sorted, 90), 0)} ms`);
    print(`  p99 ${fmt(p99, 0)} ms (target ≤ ${TARGET.p99Ms}, ratio ${fmt(p99 / TARGET.p99Ms, 2)})`);
    print(
      `burst ${BURST} distinct + ${Math.round(BURST * REEMIT_SHARE)} re-emits: ${fmt(burst.seconds)} s, ${fmt(burstRate)} events/s`
    );
    print(
      `ceiling trivial workflow + regular no-op activity, ${config.OUTBOX_RELAY_CONCURRENCY} starts in flight: ${fmt(ceiling.seconds)} s, ${fmt(ceilingRate)} workflows/s`
    );
    print(`  burst / ceiling = ${fmt(burstRate / ceilingRate, 2)} (target ≥ ${TARGET.burstRatio})`);
    print(
      `history events per delivered event: ${fmt(historyAfter)} (before: ${historyBefore}, ratio ${fmt(historyAfter / historyBefore, 2)}); trivial workflow: ${fmt(ceiling.historyEvents)}`
    );
    print(`  one delivered event's history: ${await historyEventTypes(stack.temporalClient, latency.ids[0] ?? '')}`);
  } finally {
    await bench.stop();
  }
}

await main();
