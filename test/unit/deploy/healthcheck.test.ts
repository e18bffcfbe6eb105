import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCollectorConfig } from '../../../collector/config.js';
import { Heartbeat, type CollectorSnapshot } from '../../../collector/heartbeat.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { WORKER_STATUS_INTERVAL_MS } from '../../../worker/status-file.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { projectPath } from '../../helpers/compose-file.js';

// ADR 0018: the container healthcheck is a plain `node bin/healthcheck.js [role]` that reads a status
// file (or GET /healthz), never the CLI. These run it as the container runtime does and read its exit code.
const SCRIPT = projectPath('bin/healthcheck.js');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wa-lake-health-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function probe(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } }, (err, stdout) =>
      resolve({ code: err ? Number(err.code) : 0, stdout })
    );
  });
}

const MINUTE_MS = 60_000;

/** A status file written by the collector's own Heartbeat at a chosen clock, after `states` in turn. */
function collectorStatusAfter(dir: string, states: Array<{ state: string; atMs: number }>): string {
  const statusPath = join(dir, 'collector-status.json');
  let current = states[0]!;
  const heartbeat = new Heartbeat({
    logger: silentLogger(),
    statusPath,
    intervalMs: MINUTE_MS,
    now: () => current.atMs,
    getSnapshot: (): CollectorSnapshot => ({
      mode: 'live',
      sessionState: current.state,
      sessionStateSince: new Date(current.atMs).toISOString(),
      outbox: { pending: 0, started: 0, dead: 0 },
      oldestPendingAgeMs: null,
    }),
  });
  for (const step of states) {
    current = step;
    heartbeat.beat();
  }
  return statusPath;
}

describe('bin/healthcheck.js collector', () => {
  it('is healthy while connected, and fails after HEALTHCHECK_WHATSAPP_DOWN_MS without WhatsApp', async () => {
    const dir = tempDir();
    const now = Date.now();
    const env = { COLLECTOR_STATUS_PATH: join(dir, 'collector-status.json'), HEALTHCHECK_WHATSAPP_DOWN_MS: '120000' };

    collectorStatusAfter(dir, [{ state: 'open', atMs: now }]);
    expect(await probe(['collector'], env)).toEqual({ code: 0, stdout: 'collector: healthy\n' });

    // Dropped 1 min ago (reconnecting since): still within the 2 min allowed.
    collectorStatusAfter(dir, [
      { state: 'open', atMs: now - 10 * MINUTE_MS },
      { state: 'reconnecting', atMs: now - MINUTE_MS },
      { state: 'connecting', atMs: now },
    ]);
    expect((await probe(['collector'], env)).code).toBe(0);

    // Dropped 3 min ago; the reconnect attempts since then do not reset the clock.
    collectorStatusAfter(dir, [
      { state: 'open', atMs: now - 10 * MINUTE_MS },
      { state: 'reconnecting', atMs: now - 3 * MINUTE_MS },
      { state: 'connecting', atMs: now - MINUTE_MS },
      { state: 'reconnecting', atMs: now },
    ]);
    const dropped = await probe(['collector'], env);
    expect(dropped.code).toBe(1);
    expect(dropped.stdout).toContain('no WhatsApp connection since');
  });

  it('fails for a collector that never reached WhatsApp once the allowed time has passed', async () => {
    const dir = tempDir();
    const now = Date.now();
    collectorStatusAfter(dir, [
      { state: 'connecting', atMs: now - 11 * MINUTE_MS },
      { state: 'reconnecting', atMs: now },
    ]);
    // Default HEALTHCHECK_WHATSAPP_DOWN_MS (10 min), status path found next to OUTBOX_PATH.
    const result = await probe([], { OUTBOX_PATH: join(dir, 'outbox.sqlite') });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^collector: no WhatsApp connection since/);
  });

  it('fails without a status file, after a recorded stop, and for a stale heartbeat', async () => {
    const dir = tempDir();
    const env = { OUTBOX_PATH: join(dir, 'outbox.sqlite') };
    expect((await probe(['collector'], env)).stdout).toContain('no collector status file');

    const status = {
      pid: process.pid,
      mode: 'live',
      sessionState: 'open',
      sessionStateSince: new Date().toISOString(),
      startedAt: new Date().toISOString(),
      lastHeartbeatAt: new Date(Date.now() - 4 * MINUTE_MS).toISOString(),
      stoppedAt: null,
      sessionDownSince: null,
    };
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify(status));
    const stale = await probe(['collector'], env);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('last heartbeat');

    // A heartbeat dated ahead of this host's clock (the clock moved back) is not fresh; within an interval it is.
    const ahead = (ms: number) => ({ ...status, lastHeartbeatAt: new Date(Date.now() + ms).toISOString() });
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify(ahead(10 * MINUTE_MS)));
    const future = await probe(['collector'], env);
    expect(future.code).toBe(1);
    expect(future.stdout).toMatch(/last heartbeat dated \d+ s in the future/);
    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify(ahead(5_000)));
    expect((await probe(['collector'], env)).code).toBe(0);

    writeFileSync(join(dir, 'collector-status.json'), JSON.stringify({ ...status, stoppedAt: status.startedAt }));
    const stopped = await probe(['collector'], env);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain('collector stopped at');
  });
});

describe('bin/healthcheck.js worker and ingest-api', () => {
  it('worker: healthy only while its status file says RUNNING and is fresh', async () => {
    const dir = tempDir();
    const path = join(dir, 'worker-status.json');
    const write = (state: string, ageMs = 0) =>
      writeFileSync(
        path,
        JSON.stringify({
          pid: process.pid,
          state,
          startedAt: new Date().toISOString(),
          lastHeartbeatAt: new Date(Date.now() - ageMs).toISOString(),
          stoppedAt: null,
        })
      );
    write('RUNNING');
    expect(await probe(['worker'], { WORKER_STATUS_PATH: path })).toEqual({ code: 0, stdout: 'worker: healthy\n' });
    write('DRAINING');
    expect((await probe(['worker'], { WORKER_STATUS_PATH: path })).code).toBe(1);
    write('RUNNING', 4 * WORKER_STATUS_INTERVAL_MS);
    expect((await probe(['worker'], { WORKER_STATUS_PATH: path })).code).toBe(1);
    expect((await probe(['worker'], {})).stdout).toContain('WORKER_STATUS_PATH is not set');
  });

  it('ingest-api: asks GET /healthz on INGEST_PORT', async () => {
    const server: Server = createServer((request, response) => {
      response.statusCode = request.url === '/healthz' ? 200 : 404;
      response.end('{"status":"ok"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    expect(await probe(['ingest-api'], { INGEST_PORT: String(port) })).toEqual({
      code: 0,
      stdout: 'ingest-api: healthy\n',
    });
    server.close();
    expect((await probe(['ingest-api'], { INGEST_PORT: String(port) })).code).toBe(1);
  });

  it('picks the role from the wa-lake command PID 1 runs, behind an init too', async () => {
    const { selectRole } = (await import(pathToFileURL(SCRIPT).href)) as {
      selectRole(arg: string | undefined, readPid1: () => string): string | null;
    };
    const cmdline =
      (...words: string[]) =>
      () =>
        `${words.join('\0')}\0`;
    expect(selectRole(undefined, cmdline('node', '/app/bin/wa-lake.js', 'worker'))).toBe('worker');
    expect(selectRole(undefined, cmdline('/sbin/docker-init', '--', 'node', '/app/bin/wa-lake.js', 'ingest-api'))).toBe(
      'ingest-api'
    );
    expect(selectRole(undefined, cmdline('node', '/app/bin/wa-lake.js', 'migrate'))).toBe('collector');
    expect(selectRole('worker', cmdline('node', '/app/bin/wa-lake.js', 'collector'))).toBe('worker');
    expect(selectRole('status', cmdline())).toBeNull();
  });

  it('uses the defaults of the processes’ own configuration', async () => {
    const { DEFAULTS, WORKER_STATUS_INTERVAL_MS: scriptInterval } = (await import(pathToFileURL(SCRIPT).href)) as {
      DEFAULTS: Record<string, string | number>;
      WORKER_STATUS_INTERVAL_MS: number;
    };
    const collector = loadCollectorConfig({});
    expect(DEFAULTS).toMatchObject({
      OUTBOX_PATH: collector.OUTBOX_PATH,
      HEARTBEAT_INTERVAL_MS: collector.HEARTBEAT_INTERVAL_MS,
      HEALTHCHECK_WHATSAPP_DOWN_MS: collector.HEALTHCHECK_WHATSAPP_DOWN_MS,
    });
    expect(scriptInterval).toBe(WORKER_STATUS_INTERVAL_MS);
    expect(DEFAULTS['INGEST_PORT']).toBe(
      loadIngestConfig({ DATABASE_URL: 'postgres://u@h/db', WHATSAPP_WEBHOOK_SECRET: randomBytes(32).toString('hex') })
        .port
    );
  });
});
