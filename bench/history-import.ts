/**
 * Benchmark of a history import end to end (ADR 0016 "Cost of a history import"), beside a live burst of the same
 * size in the same run, on the stack `wa-lake dev` runs (Temporal dev server, embedded PostgreSQL, ingest API,
 * worker) with the collector's own path: `EventPipeline` → SQLite outbox → `OutboxRelay` → one `deliverEvent`
 * per event → ingest → PostgreSQL. Only WhatsApp is replaced: the bench hands the pipeline what Baileys would.
 *
 * - live burst: N messages as `messages.upsert` `notify` batches of 100;
 * - history import: N other messages of the same shape as `messaging-history.set` pushes (`--push`, default 1 000; a `HistorySync`
 *   encoded, decoded and split by Baileys' own `processHistoryMessage`), with the collector's progress meter
 *   printing events kept, rate and ETA per push, and the lake's count as it fills.
 *
 * Each phase is timed from its first event into the pipeline until the lake holds every event of it. Rounds
 * alternate the two (live first, then history first), so the box's load bends both alike. Afterwards the
 * Temporal histories of a sample of delivered events of each kind give the Temporal Cloud actions per event
 * (a workflow start; the local activities of one workflow task count as one action; every scheduled regular
 * activity, timer and signal one more) and the cost of 1 000 000 imported events.
 *
 * Run: `npx tsx bench/history-import.ts [--events 2000] [--rounds 2] [--sample 50] [--push 1000]`. The target is
 * 100 000 events; on a shared 2-core box keep the run under about 3 minutes and extrapolate from the measured rate.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { processHistoryMessage, proto as waProto } from '@whiskeysockets/baileys';
import type pg from 'pg';
import type { EventPipeline } from '../collector/event-pipeline.js';
import { HistoryProgressMeter } from '../collector/history-progress.js';
import { startBenchDeliveryStack } from './bench-delivery-stack.js';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '2' },
    sample: { type: 'string', default: '50' },
    push: { type: 'string', default: '1000' },
  },
});
const EVENTS = Number(flags.events);
const ROUNDS = Number(flags.rounds);
const SAMPLE = Number(flags.sample);
const PUSH_SIZE = Number(flags.push);
const LIVE_BATCH = 100;
const GROUP = '120363000000000001@g.us';
const EventType = proto.temporal.api.enums.v1.EventType;
/** History events that are one Temporal Cloud action each. */
const ACTION_EVENT_TYPES = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  EventType.EVENT_TYPE_TIMER_STARTED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
]);

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function message(id: string, sequence: number): Record<string, unknown> {
  return {
    key: { remoteJid: GROUP, fromMe: false, id, participant: `10000000000000${String(sequence % 7)}@lid` },
    messageTimestamp: 1_760_000_000 + sequence,
    message: { conversation: `bom dia, pessoal! 🌞 #${String(sequence)}` },
  };
}

async function lakeCount(pool: pg.Pool, prefix: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE chat_jid = $1 AND payload->'key'->>'id' LIKE $2`,
    [GROUP, `${prefix}%`]
  );
  return rows[0]?.n ?? 0;
}

async function waitForLake(
  pool: pg.Pool,
  prefix: string,
  expected: number,
  onTick?: (n: number) => void
): Promise<void> {
  const deadline = Date.now() + 30 * 60_000;
  for (let lastTick = 0; ;) {
    const n = await lakeCount(pool, prefix);
    if (n >= expected) return;
    if (Date.now() > deadline) throw new Error(`only ${String(n)} of ${String(expected)} events reached the lake`);
    if (onTick && Date.now() - lastTick >= 5_000) {
      lastTick = Date.now();
      onTick(n);
    }
    await sleep(100);
  }
}

/** A live burst: N messages as `notify` batches of 100, timed until the lake holds them all. */
async function liveBurst(
  pipeline: EventPipeline,
  pool: pg.Pool,
  prefix: string
): Promise<{ ms: number; ids: string[] }> {
  const ids: string[] = [];
  const started = performance.now();
  for (let first = 0; first < EVENTS; first += LIVE_BATCH) {
    // Decoded `WebMessageInfo` instances, as Baileys hands live messages over (history ones are the same class).
    const messages = Array.from({ length: Math.min(LIVE_BATCH, EVENTS - first) }, (_, i) =>
      waProto.WebMessageInfo.decode(
        waProto.WebMessageInfo.encode(
          waProto.WebMessageInfo.fromObject(message(`${prefix}${String(first + i).padStart(12, '0')}`, first + i))
        ).finish()
      )
    );
    ids.push(...pipeline.handle('messages.upsert', { type: 'notify', messages }, new Date()).eventIds);
    await sleep(0); // Baileys hands batches over between socket reads; the relay and the worker run in between.
  }
  await waitForLake(pool, prefix, EVENTS);
  return { ms: performance.now() - started, ids };
}

/** The pushes of a history import of N messages, as Baileys emits them after downloading each `HistorySync`. */
function historyPushes(prefix: string): Array<Record<string, unknown>> {
  const pushes = Math.ceil(EVENTS / PUSH_SIZE);
  return Array.from({ length: pushes }, (_, p) => {
    const size = Math.min(PUSH_SIZE, EVENTS - p * PUSH_SIZE);
    const messages = Array.from({ length: size }, (_, i) => {
      const sequence = p * PUSH_SIZE + i;
      return { message: message(`${prefix}${String(sequence).padStart(12, '0')}`, sequence) };
    });
    const sync = waProto.HistorySync.encode({
      syncType: waProto.HistorySync.HistorySyncType.RECENT,
      progress: Math.round(((p + 1) / pushes) * 100),
      conversations: [{ id: GROUP, messages }],
    }).finish();
    return { ...processHistoryMessage(waProto.HistorySync.decode(sync)), isLatest: p === pushes - 1 };
  });
}

/** A history import of N messages in pushes of 1 000, with the collector's progress line per push. */
async function historyImport(
  pipeline: EventPipeline,
  pool: pg.Pool,
  prefix: string
): Promise<{ ms: number; ids: string[] }> {
  const pushes = historyPushes(prefix);
  const meter = new HistoryProgressMeter();
  const ids: string[] = [];
  const started = performance.now();
  for (const push of pushes) {
    const outcome = pipeline.handle('messaging-history.set', push, new Date());
    ids.push(...outcome.eventIds);
    const progress = meter.record(outcome.kept, push['progress'], push['syncType']);
    print(
      `    history import progress: ${String(progress.percent)} %, ${String(progress.items)} events kept, ` +
        `${String(progress.itemsPerSecond)}/s, ETA ${progress.etaMs === null ? '?' : `${String(progress.etaMs)} ms`}`
    );
    await sleep(0);
  }
  await waitForLake(pool, prefix, EVENTS, (n) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = n / seconds;
    print(
      `    in the lake: ${String(n)} of ${String(EVENTS)}, ${rate.toFixed(0)}/s, ETA ${rate > 0 ? ((EVENTS - n) / rate).toFixed(0) : '?'} s`
    );
  });
  return { ms: performance.now() - started, ids };
}

/** Temporal Cloud actions of one workflow history (docs.temporal.io/cloud/actions) and its event count. */
async function actionsOf(client: Client, workflowId: string): Promise<{ actions: number; events: number }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  let actions = 0;
  let isTaskWithLocalActivity = false;
  for (const event of events) {
    const type = Number(event.eventType);
    if (ACTION_EVENT_TYPES.has(type)) actions += 1;
    else if (type === Number(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)) isTaskWithLocalActivity = false;
    else if (type === Number(EventType.EVENT_TYPE_MARKER_RECORDED)) {
      // Every local activity of one workflow task together is one action.
      if (!isTaskWithLocalActivity) actions += 1;
      isTaskWithLocalActivity = true;
    }
  }
  return { actions, events: events.length };
}

async function meanActions(client: Client, ids: string[]): Promise<{ actions: number; events: number }> {
  const sample = ids.slice(0, SAMPLE);
  let actions = 0;
  let events = 0;
  for (const id of sample) {
    const one = await actionsOf(client, id);
    actions += one.actions;
    events += one.events;
  }
  return { actions: actions / sample.length, events: events / sample.length };
}

async function main(): Promise<void> {
  const bench = await startBenchDeliveryStack('wa-lake-bench-history-');
  const { stack, pool, pipeline } = bench;
  const benchStarted = performance.now();
  try {
    const rates = { live: [] as number[], history: [] as number[] };
    const sampleIds = { live: [] as string[], history: [] as string[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'live' | 'history'> = round % 2 === 0 ? ['live', 'history'] : ['history', 'live'];
      for (const kind of order) {
        const prefix = `${kind === 'live' ? 'L' : 'H'}${String(round)}X`;
        print(`round ${String(round + 1)}: ${kind} ${String(EVENTS)} events …`);
        const run =
          kind === 'live' ? await liveBurst(pipeline, pool, prefix) : await historyImport(pipeline, pool, prefix);
        const rate = EVENTS / (run.ms / 1000);
        rates[kind].push(rate);
        if (sampleIds[kind].length === 0) sampleIds[kind] = run.ids;
        print(
          `  ${kind}: ${(run.ms / 1000).toFixed(1)} s, ${rate.toFixed(1)} events/s into the lake (load ${loadavg()[0]?.toFixed(1) ?? '?'})`
        );
      }
    }
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1
        ? (sorted[middle] ?? NaN)
        : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
    };
    const live = median(rates.live);
    const history = median(rates.history);
    const liveCost = await meanActions(stack.temporalClient, sampleIds.live);
    const historyCost = await meanActions(stack.temporalClient, sampleIds.history);
    print('');
    print(
      `history import bench — ${String(cpus().length)} cores, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, ${String(ROUNDS)} rounds of ${String(EVENTS)} events each way`
    );
    print(
      `  live burst     : median ${live.toFixed(1)} events/s capture → lake (rounds: ${rates.live.map((r) => r.toFixed(1)).join(', ')})`
    );
    print(
      `  history import : median ${history.toFixed(1)} events/s capture → lake (rounds: ${rates.history.map((r) => r.toFixed(1)).join(', ')})`
    );
    print(`  history / live : ${(history / live).toFixed(2)} (the history path must not be slower per event: ≥ ~1)`);
    print(`  100 000 history events at this rate: ${(100_000 / history / 60).toFixed(1)} min (extrapolated, linear)`);
    print(
      `  Temporal actions per event (sample of ${String(SAMPLE)}): live ${liveCost.actions.toFixed(2)}, history ${historyCost.actions.toFixed(2)}; ` +
        `history events per workflow: live ${liveCost.events.toFixed(1)}, history ${historyCost.events.toFixed(1)}`
    );
    print(
      `  1 000 000 imported events ≈ ${(historyCost.actions * 1_000_000).toLocaleString('en-US')} actions (first-try deliveries; retries add more)`
    );
    print(`  bench wall time ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`);
  } finally {
    await bench.stop();
  }
}

await main();
