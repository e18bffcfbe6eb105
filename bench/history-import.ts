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
 * alternate the two (live first, then history first), so the box's load bends both alike; `--phases` names the
 * order outright instead (`live,history,live` brackets one long import between two bursts). Afterwards the
 * Temporal histories of a sample of delivered events of each kind give the Temporal Cloud actions per event
 * (a workflow start; the local activities of one workflow task count as one action; every scheduled regular
 * activity, timer and signal one more) and the cost of 1 000 000 imported events.
 *
 * Progress is read the way an operator reads it: the bench runs the collector's `Heartbeat` on the stack's status
 * file (drain rate and pending ETA in its log record) and, every `--status-every` seconds of a history phase,
 * `wa-lake status --data-dir` in a process of its own, printing its `delivery` and `history` lines.
 *
 * Run: `npx tsx bench/history-import.ts [--events 2000] [--live-events N] [--rounds 2] [--phases live,history,live]
 * [--sample 50] [--push 1000] [--status-every 120] [--heartbeat-ms 20000]`; `BENCH_HISTORY_EVENTS` and
 * `BENCH_LIVE_EVENTS` set the two sizes too (the flags win). The target is 100 000 events; at the rate of a
 * loaded 2-core box that is an hour or more, so measure the rate with 10 000 first.
 */
import { execFile } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { processHistoryMessage, proto as waProto } from '@whiskeysockets/baileys';
import type pg from 'pg';
import pino from 'pino';
import type { EventPipeline } from '../collector/event-pipeline.js';
import { Heartbeat } from '../collector/heartbeat.js';
import { HistoryProgressMeter } from '../collector/history-progress.js';
import { startBenchDeliveryStack } from './bench-delivery-stack.js';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: process.env['BENCH_HISTORY_EVENTS'] ?? '2000' },
    'live-events': { type: 'string', default: process.env['BENCH_LIVE_EVENTS'] },
    rounds: { type: 'string', default: '2' },
    phases: { type: 'string' },
    sample: { type: 'string', default: '50' },
    push: { type: 'string', default: '1000' },
    'status-every': { type: 'string', default: '120' },
    'heartbeat-ms': { type: 'string', default: '20000' },
  },
});
type Kind = 'live' | 'history';
const HISTORY_EVENTS = Number(flags.events);
const LIVE_EVENTS = Number(flags['live-events'] ?? flags.events);
const ROUNDS = Number(flags.rounds);
const PHASES: Kind[] = flags.phases
  ? flags.phases.split(',').map((phase) => {
      if (phase !== 'live' && phase !== 'history') throw new Error(`--phases: ${phase} is neither live nor history`);
      return phase;
    })
  : Array.from({ length: ROUNDS }, (_, round): Kind[] =>
      round % 2 === 0 ? ['live', 'history'] : ['history', 'live']
    ).flat();
const SAMPLE = Number(flags.sample);
const PUSH_SIZE = Number(flags.push);
const STATUS_EVERY_MS = Number(flags['status-every']) * 1000;
const HEARTBEAT_MS = Number(flags['heartbeat-ms']);
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
const loads = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

function message(id: string, sequence: number): Record<string, unknown> {
  return {
    key: { remoteJid: GROUP, fromMe: false, id, participant: `10000000000000${String(sequence % 7)}@lid` },
    messageTimestamp: 1_760_000_000 + sequence,
    message: { conversation: `bom dia, pessoal! 🌞 #${String(sequence)}` },
  };
}

/** Rows of this run's group received since `since` (the phase's start): an index range, cheap at 100 000 rows. */
async function lakeCountSince(pool: pg.Pool, since: Date): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE received_at >= $1 AND chat_jid = $2`,
    [since, GROUP]
  );
  return rows[0]?.n ?? 0;
}

/** Rows of one phase by message id prefix: exact, but reads every payload, so it runs once at the end. */
async function lakeCountOfPrefix(pool: pg.Pool, prefix: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE chat_jid = $1 AND payload->'key'->>'id' LIKE $2`,
    [GROUP, `${prefix}%`]
  );
  return rows[0]?.n ?? 0;
}

/**
 * Waits until the lake holds the phase's `expected` rows. Phases run one after the other and each waits for all of
 * its rows, so the rows received since the phase's start are its own; the poll interval grows with the phase (a
 * hundredth of the time so far, 0.1–2 s), so the end is timed to about 1 % while a long import is not slowed by
 * its own watcher.
 */
async function waitForLake(
  pool: pg.Pool,
  since: Date,
  prefix: string,
  expected: number,
  onTick?: (n: number, elapsedMs: number) => void
): Promise<void> {
  const started = performance.now();
  const deadline = Date.now() + 4 * 60 * 60_000;
  for (let lastTick = 0; ;) {
    const n = await lakeCountSince(pool, since);
    const elapsedMs = performance.now() - started;
    if (n >= expected) {
      const exact = await lakeCountOfPrefix(pool, prefix);
      if (exact !== expected)
        throw new Error(`the lake holds ${String(exact)} rows of ${prefix}, not ${String(expected)}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`only ${String(n)} of ${String(expected)} events reached the lake`);
    if (onTick && elapsedMs - lastTick >= clamp(elapsedMs / 10, 5_000, 60_000)) {
      lastTick = elapsedMs;
      onTick(n, elapsedMs);
    }
    await sleep(clamp(elapsedMs / 100, 100, 2_000));
  }
}

async function databaseNow(pool: pg.Pool): Promise<Date> {
  const { rows } = await pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return rows[0]?.now ?? new Date();
}

/** What a phase needs beside its prefix: the pipeline, the lake and the collector's progress meter and heartbeat. */
interface PhaseContext {
  pipeline: EventPipeline;
  pool: pg.Pool;
  meter: HistoryProgressMeter;
  heartbeat: Heartbeat;
  dataDir: string;
}

/** A live burst: N messages as `notify` batches of 100, timed until the lake holds them all. */
async function liveBurst(context: PhaseContext, prefix: string): Promise<{ ms: number; ids: string[] }> {
  const { pipeline, pool } = context;
  const ids: string[] = [];
  const since = await databaseNow(pool);
  const started = performance.now();
  for (let first = 0; first < LIVE_EVENTS; first += LIVE_BATCH) {
    // Decoded `WebMessageInfo` instances, as Baileys hands live messages over (history ones are the same class).
    const messages = Array.from({ length: Math.min(LIVE_BATCH, LIVE_EVENTS - first) }, (_, i) =>
      waProto.WebMessageInfo.decode(
        waProto.WebMessageInfo.encode(
          waProto.WebMessageInfo.fromObject(message(`${prefix}${String(first + i).padStart(12, '0')}`, first + i))
        ).finish()
      )
    );
    ids.push(...pipeline.handle('messages.upsert', { type: 'notify', messages }, new Date()).eventIds);
    await sleep(0); // Baileys hands batches over between socket reads; the relay and the worker run in between.
  }
  await waitForLake(pool, since, prefix, LIVE_EVENTS, (n, elapsedMs) => {
    print(`    in the lake: ${String(n)} of ${String(LIVE_EVENTS)}, ${(n / (elapsedMs / 1000)).toFixed(0)}/s`);
  });
  return { ms: performance.now() - started, ids };
}

/** The pushes of a history import of N messages, as Baileys emits them after downloading each `HistorySync`. */
function historyPushes(prefix: string): Array<Record<string, unknown>> {
  const pushes = Math.ceil(HISTORY_EVENTS / PUSH_SIZE);
  return Array.from({ length: pushes }, (_, p) => {
    const size = Math.min(PUSH_SIZE, HISTORY_EVENTS - p * PUSH_SIZE);
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

/** `wa-lake status --data-dir` in a process of its own, as an operator runs it; its progress lines, indented. */
async function statusLines(dataDir: string): Promise<string> {
  const cli = new URL('../cli/main.ts', import.meta.url).pathname;
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', cli, 'status', '--data-dir', dataDir],
      { env: { ...process.env, LOG_LEVEL: 'warn' }, timeout: 120_000 }
    );
    return stdout
      .split('\n')
      .filter((line) => /^(outbox|delivery|history) /.test(line))
      .map((line) => `    wa-lake status | ${line}`)
      .join('\n');
  } catch (err) {
    return `    wa-lake status failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * A history import of N messages in pushes of `--push`, with the collector's progress line per push (the same
 * fields its log record has), the lake's count with rate and ETA, and `wa-lake status` every `--status-every` s.
 */
async function historyImport(context: PhaseContext, prefix: string): Promise<{ ms: number; ids: string[] }> {
  const { pipeline, pool, meter, heartbeat } = context;
  const pushes = historyPushes(prefix);
  const ids: string[] = [];
  const since = await databaseNow(pool);
  const started = performance.now();
  for (const push of pushes) {
    const outcome = pipeline.handle('messaging-history.set', push, new Date());
    ids.push(...outcome.eventIds);
    const progress = meter.record(outcome.kept, push['progress'], push['syncType']);
    heartbeat.refresh();
    print(
      `    history import progress: ${String(progress.percent)} %, ${String(progress.items)} events kept, ` +
        `${progress.itemsPerSecond === null ? '?' : String(progress.itemsPerSecond)}/s, ETA ${progress.etaMs === null ? '?' : `${String(progress.etaMs)} ms`}`
    );
    await sleep(0);
  }
  let nextStatusMs = STATUS_EVERY_MS;
  let status: Promise<void> = Promise.resolve();
  await waitForLake(pool, since, prefix, HISTORY_EVENTS, (n, elapsedMs) => {
    const rate = n / (elapsedMs / 1000);
    print(
      `    in the lake: ${String(n)} of ${String(HISTORY_EVENTS)}, ${rate.toFixed(0)}/s, ` +
        `ETA ${rate > 0 ? ((HISTORY_EVENTS - n) / rate).toFixed(0) : '?'} s (load ${loads()})`
    );
    if (STATUS_EVERY_MS > 0 && elapsedMs >= nextStatusMs) {
      nextStatusMs = elapsedMs + STATUS_EVERY_MS;
      status = status.then(async () => print(await statusLines(context.dataDir)));
    }
  });
  const ms = performance.now() - started;
  await status;
  return { ms, ids };
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
  const { stack, pool, pipeline, outbox, config } = bench;
  const meter = new HistoryProgressMeter();
  // The collector's heartbeat on the stack's status file: its log record (drain rate, pending ETA) goes to stdout.
  const heartbeat = new Heartbeat({
    logger: pino({ level: 'info', base: null, timestamp: false }),
    statusPath: config.COLLECTOR_STATUS_PATH,
    intervalMs: HEARTBEAT_MS,
    getSnapshot: () => {
      const oldest = outbox.oldestPendingCreatedAt();
      return {
        mode: 'live',
        sessionState: 'open',
        sessionStateSince: new Date().toISOString(),
        outbox: outbox.countByState(),
        oldestPendingAgeMs: oldest === null ? null : Date.now() - oldest,
        historyImport: meter.status(),
      };
    },
  });
  const context: PhaseContext = { pipeline, pool, meter, heartbeat, dataDir: bench.dataDir };
  const benchStarted = performance.now();
  try {
    heartbeat.start();
    const rates: Record<Kind, number[]> = { live: [], history: [] };
    const phaseLoads: Record<Kind, string[]> = { live: [], history: [] };
    const sampleIds: Record<Kind, string[]> = { live: [], history: [] };
    for (const [index, kind] of PHASES.entries()) {
      const prefix = `${kind === 'live' ? 'L' : 'H'}${String(index)}X`;
      const events = kind === 'live' ? LIVE_EVENTS : HISTORY_EVENTS;
      print(
        `phase ${String(index + 1)}/${String(PHASES.length)}: ${kind} ${String(events)} events (load ${loads()}) …`
      );
      const run = kind === 'live' ? await liveBurst(context, prefix) : await historyImport(context, prefix);
      const rate = events / (run.ms / 1000);
      rates[kind].push(rate);
      phaseLoads[kind].push(loads());
      if (sampleIds[kind].length === 0) sampleIds[kind] = run.ids;
      print(`  ${kind}: ${(run.ms / 1000).toFixed(1)} s, ${rate.toFixed(1)} events/s into the lake (load ${loads()})`);
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
      `history import bench — ${String(cpus().length)} cores, load ${loads()}, phases ${PHASES.join(',')}: ` +
        `history ${String(HISTORY_EVENTS)} events, live ${String(LIVE_EVENTS)} events each`
    );
    const perPhase = (kind: Kind): string =>
      rates[kind].map((r, i) => `${r.toFixed(1)} at load ${phaseLoads[kind][i] ?? '?'}`).join('; ');
    print(`  live burst     : median ${live.toFixed(1)} events/s capture → lake (${perPhase('live')})`);
    print(`  history import : median ${history.toFixed(1)} events/s capture → lake (${perPhase('history')})`);
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
    heartbeat.stop();
    await bench.stop();
  }
}

await main();
