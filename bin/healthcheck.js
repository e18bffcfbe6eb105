#!/usr/bin/env node
// Container healthcheck of the three wa-lake processes (ADR 0018, architecture.md §10). Plain Node,
// no dependency and not the CLI, so a probe costs one short `node` start, not the whole CLI every 30 s.
//
//   node bin/healthcheck.js [collector|worker|ingest-api]
//
// Without an argument it checks the process the container runs: the word after `wa-lake.js` in PID 1's
// command line (also behind `--init`), else the collector. Exit 0 healthy, 1 unhealthy; prints the reason.
//   collector  : its status file (COLLECTOR_STATUS_PATH, default collector-status.json next to OUTBOX_PATH)
//                shows a running collector (no recorded stop, pid alive), a heartbeat at most three
//                HEARTBEAT_INTERVAL_MS old and at most one ahead of this host's clock, and a WhatsApp connection lost (or never made) at most
//                HEALTHCHECK_WHATSAPP_DOWN_MS ago. A replay is healthy while it runs.
//   worker     : its status file (WORKER_STATUS_PATH) shows the Temporal worker RUNNING, rewritten every
//                15 s by `wa-lake worker`, at most 45 s old and at most 15 s ahead.
//   ingest-api : GET /healthz on 127.0.0.1:INGEST_PORT answers 2xx within 800 ms.
// Defaults are those of the processes' configuration (test/unit/deploy/healthcheck.test.ts compares them).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULTS = Object.freeze({
  OUTBOX_PATH: '.data/outbox.sqlite',
  HEARTBEAT_INTERVAL_MS: 60_000,
  HEALTHCHECK_WHATSAPP_DOWN_MS: 600_000,
  INGEST_PORT: 8080,
});
/** How often `wa-lake worker` rewrites its status file (worker/status-file.ts). */
export const WORKER_STATUS_INTERVAL_MS = 15_000;
const ROLES = ['collector', 'worker', 'ingest-api'];

function positiveInt(env, key) {
  const raw = env[key];
  if (raw === undefined || raw === '') return DEFAULTS[key];
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${key} must be a whole number, got ${raw}`);
  return value;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function isProcessAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

const ageMs = (iso, now) => now - Date.parse(iso);

/**
 * Why a heartbeat `age` ms old is not fresh, or null: older than `maxMs`, unreadable, or dated more than `intervalMs`
 * after now — its writer runs on this host, so such a date means a clock moved, and it would otherwise look fresh
 * for as long as the clock stays behind.
 */
function staleHeartbeat(age, maxMs, intervalMs, what) {
  if (age < -intervalMs) return `${what} dated ${Math.round(-age / 1000)} s in the future (a clock moved)`;
  return age <= maxMs ? null : `${what} ${Math.round(age / 1000)} s old`;
}

/** @returns null when healthy, else the reason. */
export function checkCollector(env, now = Date.now()) {
  const statusPath =
    env.COLLECTOR_STATUS_PATH || join(dirname(env.OUTBOX_PATH || DEFAULTS.OUTBOX_PATH), 'collector-status.json');
  const status = readJson(statusPath);
  if (!status || typeof status.lastHeartbeatAt !== 'string') return `no collector status file at ${statusPath}`;
  if (typeof status.stoppedAt === 'string') return `collector stopped at ${status.stoppedAt}`;
  if (!isProcessAlive(status.pid)) return `collector pid ${status.pid} is gone without recording a stop`;
  const intervalMs = positiveInt(env, 'HEARTBEAT_INTERVAL_MS');
  const stale = staleHeartbeat(ageMs(status.lastHeartbeatAt, now), 3 * intervalMs, intervalMs, 'last heartbeat');
  if (stale !== null) return stale;
  const downMaxMs = positiveInt(env, 'HEALTHCHECK_WHATSAPP_DOWN_MS');
  if (typeof status.sessionDownSince === 'string' && ageMs(status.sessionDownSince, now) > downMaxMs) {
    return `no WhatsApp connection since ${status.sessionDownSince} (state ${status.sessionState})`;
  }
  return null;
}

/** @returns null when healthy, else the reason. */
export function checkWorker(env, now = Date.now()) {
  const statusPath = env.WORKER_STATUS_PATH;
  if (!statusPath) return 'WORKER_STATUS_PATH is not set: the worker writes no status file';
  const status = readJson(statusPath);
  if (!status || typeof status.lastHeartbeatAt !== 'string') return `no worker status file at ${statusPath}`;
  if (typeof status.stoppedAt === 'string') return `worker stopped at ${status.stoppedAt}`;
  if (!isProcessAlive(status.pid)) return `worker pid ${status.pid} is gone without recording a stop`;
  if (status.state !== 'RUNNING') return `temporal worker is ${status.state}`;
  const age = ageMs(status.lastHeartbeatAt, now);
  return staleHeartbeat(age, 3 * WORKER_STATUS_INTERVAL_MS, WORKER_STATUS_INTERVAL_MS, 'worker status');
}

/** @returns null when healthy, else the reason. */
export async function checkIngestApi(env) {
  const url = `http://127.0.0.1:${positiveInt(env, 'INGEST_PORT')}/healthz`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(800) });
    return response.ok ? null : `${url} answered ${response.status}`;
  } catch (err) {
    return `${url}: ${err.cause?.code ?? err.name}`;
  }
}

/** The role to check: the argument, else the `wa-lake` command PID 1 runs (the container's), else collector. */
export function selectRole(arg, readPid1 = () => readFileSync('/proc/1/cmdline', 'utf8')) {
  if (arg !== undefined) return ROLES.includes(arg) ? arg : null;
  try {
    const words = readPid1().split('\0');
    const entry = words.findIndex((word) => word.endsWith('wa-lake.js'));
    const command = entry >= 0 ? words[entry + 1] : undefined;
    if (ROLES.includes(command)) return command;
  } catch {
    // no /proc (not Linux) or not readable: the image's default command
  }
  return 'collector';
}

async function main() {
  const role = selectRole(process.argv[2]);
  if (role === null) {
    process.stdout.write(`usage: healthcheck.js [${ROLES.join('|')}]\n`);
    return 2;
  }
  let reason;
  try {
    if (role === 'collector') reason = checkCollector(process.env);
    else if (role === 'worker') reason = checkWorker(process.env);
    else reason = await checkIngestApi(process.env);
  } catch (err) {
    reason = err.message;
  }
  process.stdout.write(`${role}: ${reason ?? 'healthy'}\n`);
  return reason === null ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main();
