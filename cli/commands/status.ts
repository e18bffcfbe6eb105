import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { type CollectorConfig, loadCollectorConfig, readCollectorStatus, OutboxStore } from '../../collector/index.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { countDeadLetters } from '../../ops/index.js';
import { withEncryptedPayloadHint } from '../../common/encrypted-payload-hint.js';
import { environmentOfDataDir } from '../local-stack/data-dir-environment.js';
import { connectTemporalClient, printLine } from './shared.js';

/** What `wa-lake status --json` prints (architecture.md §10). */
interface StatusReport {
  /** `state` is `stopped` (since `stoppedAt`) once the collector recorded a clean stop. */
  session: {
    state: string;
    since: string;
    pid: number;
    lastHeartbeatAt: string;
    heartbeatAgeMs: number;
    stoppedAt: string | null;
    /** False when no process with `pid` exists here: the collector ended without recording a stop. */
    pidAlive: boolean;
  } | null;
  outbox: { pending: number; started: number; dead: number; oldestPendingAgeMs: number | null } | null;
  deadLetters: { open: number } | { error: string };
  /**
   * True when the collector runs (no clean stop recorded, its pid exists), its last heartbeat is at most
   * three intervals old and its session has not been without WhatsApp longer than `HEALTHCHECK_WHATSAPP_DOWN_MS`.
   */
  isHealthy: boolean;
}

/** Registers `wa-lake status` (architecture.md §10; `--healthcheck` is the container HEALTHCHECK). */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('session state, outbox pending/started/dead, oldest pending age, dead letters, last heartbeat')
    .option('--json', 'print one JSON object')
    .option('--healthcheck', 'print nothing; exit 1 unless the collector runs and its heartbeat is fresh')
    .option(
      '--data-dir <dir>',
      'the data folder of a wa-lake dev stack: its outbox, status file, Temporal and keys (instead of the environment)'
    )
    .action(async (options: { json?: boolean; healthcheck?: boolean; dataDir?: string }) => {
      const env = options.dataDir === undefined ? process.env : environmentOfDataDir(options.dataDir, process.env);
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
        sessionDownMs <= config.HEALTHCHECK_WHATSAPP_DOWN_MS;
      if (options.healthcheck) {
        process.exitCode = isHealthy ? 0 : 1;
        return;
      }
      const report: StatusReport = {
        session: status
          ? {
              state: stoppedAt === null ? status.sessionState : 'stopped',
              since: stoppedAt ?? status.sessionStateSince,
              pid: status.pid,
              lastHeartbeatAt: status.lastHeartbeatAt,
              heartbeatAgeMs: heartbeatAgeMs ?? 0,
              stoppedAt,
              pidAlive,
            }
          : null,
        outbox: readOutbox(config.OUTBOX_PATH, now),
        deadLetters: await readDeadLetters(config),
        isHealthy,
      };
      if (options.json) printLine(JSON.stringify(report));
      else printReport(report, config.OUTBOX_PATH, config.TEMPORAL_ADDRESS);
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
    return { ...outbox.countByState(), oldestPendingAgeMs: oldest === null ? null : now - oldest };
  } finally {
    outbox.close();
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

function printReport(report: StatusReport, outboxPath: string, temporalAddress: string): void {
  printLine(describeSession(report));
  const outbox = report.outbox;
  printLine(
    outbox
      ? `outbox       : pending ${outbox.pending} · started ${outbox.started} · dead ${outbox.dead} · oldest pending ${formatAge(outbox.oldestPendingAgeMs)} (${outboxPath})`
      : `outbox       : none at ${outboxPath}`
  );
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
