import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import {
  BackfillStore,
  type CollectorConfig,
  type HistoryImportStatus,
  loadCollectorConfig,
  pendingEtaMs,
  readCollectorStatus,
  OutboxStore,
} from '../../collector/index.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { countDeadLetters } from '../../ops/index.js';
import { withEncryptedPayloadHint } from '../../common/encrypted-payload-hint.js';
import { dataDirLayout } from '../local-stack/data-dir.js';
import { environmentOfDataDir } from '../local-stack/data-dir-environment.js';
import { type BackfillStatus, describeBackfill, selectBackfills } from './backfill-status.js';
import { connectTemporalClient, printLine } from './shared.js';

/** What `wa-lake status --json` prints (architecture.md §10). */
interface StatusReport {
  /** `state` is `stopped` (since `stoppedAt`) once the collector recorded a clean stop. */
  session: {
    /** `live` or `replay` (a replay never asks WhatsApp, so it never runs a backfill); null in an older file. */
    mode: 'live' | 'replay' | null;
    state: string;
    since: string;
    pid: number;
    lastHeartbeatAt: string;
    heartbeatAgeMs: number;
    stoppedAt: string | null;
    /** False when no process with `pid` exists here: the collector ended without recording a stop. */
    pidAlive: boolean;
  } | null;
  /** `pendingHistory`: of `pending`, rows of history pushes (`source` `history` or `on_demand`). */
  outbox: {
    pending: number;
    started: number;
    dead: number;
    oldestPendingAgeMs: number | null;
    pendingHistory: number;
  } | null;
  /**
   * The collector's last history import (ADR 0016), as its status file has it: rate of kept events since the first
   * push, WhatsApp's percentage and the ETA it gives; null before the first push of this collector run.
   * `isHandedOver`: WhatsApp sent it all (`isDone`) and no history event waits in the outbox any more.
   */
  historyImport: (HistoryImportStatus & { updatedAgeMs: number; isHandedOver: boolean }) | null;
  /**
   * Rows the outbox handed to Temporal per second between the collector's last two beats, and how long the pending
   * ones take at that rate (null: no rate yet, or nothing drains).
   */
  delivery: { outboxDrainPerSecond: number | null; pendingEtaMs: number | null } | null;
  /**
   * History backfills (`wa-lake backfill`, ADR 0016) of the outbox file: every open one and those that ended in the
   * last 7 days, oldest update first; null when there is no outbox file.
   */
  backfills: BackfillStatus[] | null;
  deadLetters: { open: number } | { error: string };
  /**
   * True when the collector runs (no clean stop recorded, its pid exists), its last heartbeat is at most
   * three intervals old and its session has not been without WhatsApp longer than `HEALTHCHECK_WHATSAPP_DOWN_MS`.
   */
  isHealthy: boolean;
}

/**
 * `.data` when nothing names a stack (no `OUTBOX_PATH`, no `TEMPORAL_ADDRESS`) and `wa-lake dev` recorded one there:
 * its outbox and its Temporal belong together, where the defaults would pair this folder's outbox with whatever
 * listens on port 7233.
 */
function defaultStackDataDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env['OUTBOX_PATH'] !== undefined || env['TEMPORAL_ADDRESS'] !== undefined) return undefined;
  return existsSync(dataDirLayout('.data').stackFile) ? '.data' : undefined;
}

/** Registers `wa-lake status` (architecture.md §10; `--healthcheck` is the container HEALTHCHECK). */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'session state, outbox pending/started/dead and drain rate, history import progress, dead letters, last heartbeat'
    )
    .option('--json', 'print one JSON object')
    .option('--healthcheck', 'print nothing; exit 1 unless the collector runs and its heartbeat is fresh')
    .option(
      '--data-dir <dir>',
      'the data folder of a wa-lake dev stack: its outbox, status file, Temporal and keys (instead of the environment)'
    )
    .action(async (options: { json?: boolean; healthcheck?: boolean; dataDir?: string }) => {
      const dataDir = options.dataDir ?? defaultStackDataDir(process.env);
      const env = dataDir === undefined ? process.env : environmentOfDataDir(dataDir, process.env);
      const config = loadCollectorConfig(env);
      const now = Date.now();
      const status = readCollectorStatus(config.COLLECTOR_STATUS_PATH);
      const heartbeatAgeMs = status ? now - Date.parse(status.lastHeartbeatAt) : null;
      const stoppedAt = status?.stoppedAt ?? null;
      const pidAlive = status ? isProcessAlive(status.pid) : false;
      const sessionDownMs = status?.sessionDownSince ? now - Date.parse(status.sessionDownSince) : 0;
      // The same rule as bin/healthcheck.js collector (the image's HEALTHCHECK).
      const isHealthy =
        stoppedAt === null &&
        pidAlive &&
        heartbeatAgeMs !== null &&
        heartbeatAgeMs <= 3 * config.HEARTBEAT_INTERVAL_MS &&
        // Dated more than an interval ahead: the clock moved, and the beat says nothing about now.
        heartbeatAgeMs >= -config.HEARTBEAT_INTERVAL_MS &&
        sessionDownMs <= config.HEALTHCHECK_WHATSAPP_DOWN_MS;
      if (options.healthcheck) {
        process.exitCode = isHealthy ? 0 : 1;
        return;
      }
      const outbox = readOutbox(config.OUTBOX_PATH, now);
      const report: StatusReport = {
        session: status
          ? {
              mode: status.mode === 'live' || status.mode === 'replay' ? status.mode : null,
              state: stoppedAt === null ? status.sessionState : 'stopped',
              since: stoppedAt ?? status.sessionStateSince,
              pid: status.pid,
              lastHeartbeatAt: status.lastHeartbeatAt,
              heartbeatAgeMs: heartbeatAgeMs ?? 0,
              stoppedAt,
              pidAlive,
            }
          : null,
        outbox,
        historyImport: status?.historyImport
          ? {
              ...status.historyImport,
              updatedAgeMs: now - Date.parse(status.historyImport.updatedAt),
              isHandedOver: status.historyImport.isDone && (outbox?.pendingHistory ?? 0) === 0,
            }
          : null,
        delivery: null,
        backfills: readBackfills(config.OUTBOX_PATH, now),
        deadLetters: await readDeadLetters(config),
        isHealthy,
      };
      report.delivery = status ? describeDrain(status.outboxDrainPerSecond, report.outbox?.pending ?? 0) : null;
      if (options.json) printLine(JSON.stringify(report));
      else printReport(report, config);
    });
}

/**
 * Whether a process with `pid` exists on this machine (signal 0 probes without delivering anything).
 * The status file is written by a collector on the same host or container (the image's HEALTHCHECK), so
 * a missing pid means it ended without recording a stop — killed or crashed. EPERM means it exists under another user.
 */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOutbox(path: string, now: number): StatusReport['outbox'] {
  if (!existsSync(path)) return null;
  const outbox = OutboxStore.open({ path });
  try {
    const oldest = outbox.oldestPendingCreatedAt();
    return {
      ...outbox.countByState(),
      oldestPendingAgeMs: oldest === null ? null : now - oldest,
      pendingHistory: outbox.countPendingHistory(),
    };
  } finally {
    outbox.close();
  }
}

function readBackfills(path: string, now: number): StatusReport['backfills'] {
  if (!existsSync(path)) return null;
  const store = BackfillStore.open({ path });
  try {
    return selectBackfills(store.list(), now);
  } finally {
    store.close();
  }
}

async function readDeadLetters(config: CollectorConfig): Promise<StatusReport['deadLetters']> {
  try {
    const temporal = await connectTemporalClient(
      config.temporal,
      undefined,
      createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS)
    );
    try {
      return { open: await countDeadLetters(temporal.client) };
    } finally {
      await temporal.close();
    }
  } catch (err) {
    return { error: withEncryptedPayloadHint(err instanceof Error ? err.message : String(err)) };
  }
}

function formatAge(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function describeDrain(outboxDrainPerSecond: number | null, pending: number): StatusReport['delivery'] {
  return { outboxDrainPerSecond, pendingEtaMs: pendingEtaMs(pending, outboxDrainPerSecond) };
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The `history` line of `wa-lake status` (ADR 0016): a running import with WhatsApp's percentage, the events kept,
 * their rate and the ETA; one WhatsApp finished sending that is still in progress while history events wait in the
 * outbox (`pendingHistory`), with their count; a finished one with its totals; or that none ran since the collector
 * started.
 */
export function describeHistoryImport(
  history: (HistoryImportStatus & { updatedAgeMs: number }) | null,
  pendingHistory = 0
): string {
  const queued = `${count(pendingHistory)} history ${pendingHistory === 1 ? 'event' : 'events'} still queued in the outbox (not yet handed to Temporal)`;
  if (history === null) {
    const none = 'history      : no history import since the collector started';
    return pendingHistory > 0 ? `${none}; ${queued}` : none;
  }
  const kind = history.syncType === null ? 'import' : `${history.syncType} import`;
  const rate = history.itemsPerSecond === null ? '' : ` at ${count(history.itemsPerSecond)}/s`;
  const kept = `${count(history.items)} events kept in ${count(history.pushes)} ${history.pushes === 1 ? 'push' : 'pushes'}${rate}`;
  if (history.isDone && pendingHistory === 0) return `history      : ${kind} done at ${history.updatedAt}: ${kept}`;
  if (history.isDone) {
    return `history      : ${kind} in progress: WhatsApp sent all of it (100 % at ${history.updatedAt}), ${kept}; ${queued}`;
  }
  const percent =
    history.percent === null ? 'no percentage from WhatsApp' : `${String(history.percent)} % per WhatsApp`;
  const eta = history.etaMs === null ? 'ETA unknown' : `ETA ${formatAge(history.etaMs)}`;
  const waiting = pendingHistory > 0 ? `; ${queued}` : '';
  return `history      : ${kind} running, ${percent}, ${kept}, ${eta} (last push ${formatAge(history.updatedAgeMs)} ago)${waiting}`;
}

function printReport(report: StatusReport, config: CollectorConfig): void {
  const { OUTBOX_PATH: outboxPath, TEMPORAL_ADDRESS: temporalAddress } = config;
  printLine(describeSession(report));
  const outbox = report.outbox;
  printLine(
    outbox
      ? `outbox       : pending ${outbox.pending} · started ${outbox.started} · dead ${outbox.dead} · oldest pending ${formatAge(outbox.oldestPendingAgeMs)} (${outboxPath})`
      : `outbox       : none at ${outboxPath}`
  );
  const drain = report.delivery;
  if (outbox && drain?.outboxDrainPerSecond != null)
    printLine(
      `delivery     : ${String(drain.outboxDrainPerSecond)} events/s handed to Temporal (last beat); ` +
        (drain.pendingEtaMs === null
          ? `${count(outbox.pending)} pending, not draining`
          : `${count(outbox.pending)} pending, ETA ${formatAge(drain.pendingEtaMs)}`)
    );
  printLine(
    report.session === null
      ? 'history      : none (no collector has run with this OUTBOX_PATH)'
      : describeHistoryImport(report.historyImport, outbox?.pendingHistory ?? 0)
  );
  for (const backfill of report.backfills ?? [])
    printLine(describeBackfill(backfill, config.BACKFILL_MAX_ATTEMPTS, report.session?.mode === 'replay'));
  const dlq = report.deadLetters;
  printLine(
    'open' in dlq
      ? `dead letters : ${dlq.open} open (Temporal ${temporalAddress})`
      : `dead letters : unknown — ${dlq.error}`
  );
}

function describeSession(report: StatusReport): string {
  const session = report.session;
  if (!session) return 'session      : no collector status file (the collector has not run with this OUTBOX_PATH)';
  if (session.stoppedAt !== null) {
    return `session      : stopped at ${session.stoppedAt} (clean stop of pid ${session.pid}); no collector is running`;
  }
  if (!session.pidAlive) {
    return (
      `session      : not running — pid ${session.pid} is gone without recording a stop (killed or crashed); ` +
      `last state ${session.state} since ${session.since}, last heartbeat ${formatAge(session.heartbeatAgeMs)} ago`
    );
  }
  return (
    `session      : ${session.state} since ${session.since} (pid ${session.pid}); ` +
    `last heartbeat ${formatAge(session.heartbeatAgeMs)} ago${report.isHealthy ? '' : ' — STALE'}`
  );
}
