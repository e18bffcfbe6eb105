// Runs the built image as containers against this host's embedded PostgreSQL and Temporal dev server and
// checks what an operator relies on (ADR 0018): migrate, ingest-api, worker and a replay of
// examples/capture.jsonl put exactly the demo's distinct kept events in the lake; an unknown command answered by
// commander; the dashboard serving its pages behind its token; uid 1000, code read-only,
// only /data writable, volumes owned 1000:1000; each process's healthcheck and its time; JSON log lines; one
// collector per volume pair (a second container is refused; a new one starts on the volumes of a stopped and
// of a SIGKILLed one); the collector stops within 5 s of SIGTERM with Temporal up, killed under it and down
// from the start, WhatsApp unreachable throughout, its stop recorded each time. Cleans up what it started.
// Called by scripts/test-container.sh, which provides podman (WA_LAKE_PODMAN_ARGS) and the image (WA_LAKE_IMAGE).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres, type RunningPostgres } from '../../dev-stack/embedded-postgres.js';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer, type RunningTemporalDevServer } from '../../dev-stack/temporal-dev-server.js';
import { findFreePort } from '../../dev-stack/tcp-ports.js';
import { expectedDistinctEventIds } from '../../test/helpers/expected-capture-events.js';

const CAPTURE = fileURLToPath(new URL('../../examples/capture.jsonl', import.meta.url));
const IMAGE = process.env['WA_LAKE_IMAGE'] ?? 'localhost/wa-lake:ci';
const PODMAN_ARGS = (process.env['WA_LAKE_PODMAN_ARGS'] ?? '').split(' ').filter(Boolean);
/** The stop budget: `docker stop` SIGKILLs at 10 s; the collector must be gone within 5 s. */
const STOP_BUDGET_MS = 5_000;
const SECRET = 'container-check-secret-0123456789abcdef';
const DASHBOARD_TOKEN = 'container-check-dashboard-token-0123456789';
const prefix = `wa-lake-ci-${process.pid}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function podman(args: string[], timeoutMs = 300_000): Promise<Run> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    execFile(
      'podman',
      [...PODMAN_ARGS, ...args],
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? Number(err.code) : -1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - startedAt });
      }
    );
  });
}

async function podmanOk(args: string[], what: string): Promise<Run> {
  const run = await podman(args);
  if (run.code !== 0) throw new Error(`${what} failed (exit ${run.code}): ${run.stderr.trim()}\n${run.stdout.trim()}`);
  return run;
}

const failures: string[] = [];
const figures: string[] = [];
function check(condition: boolean, what: string): void {
  process.stdout.write(`${condition ? 'ok  ' : 'FAIL'} ${what}\n`);
  if (!condition) failures.push(what);
}

async function poll<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Every line is one JSON object (ADR 0018). */
function checkJsonLines(what: string, text: string): void {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const bad = lines.filter((line) => {
    try {
      return typeof JSON.parse(line) !== 'object';
    } catch {
      return true;
    }
  });
  check(
    lines.length > 0 && bad.length === 0,
    `${what}: ${lines.length} log lines, all JSON${bad.length ? ` — not: ${bad.slice(0, 3).join(' | ')}` : ''}`
  );
}

async function checkJsonLogs(name: string): Promise<void> {
  const logs = await podmanOk(['logs', name], `podman logs ${name}`);
  checkJsonLines(name, `${logs.stdout}\n${logs.stderr}`);
}

const STATUS_FILE = '/data/outbox/collector-status.json';

interface StatusFile {
  startedAt?: string;
  stoppedAt?: string | null;
}

function parseStatus(text: string): StatusFile {
  try {
    return JSON.parse(text) as StatusFile;
  } catch {
    return {};
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Medians of 5 probes: the healthcheck's own time inside the container, and with `podman exec` around it. */
async function timeProbes(name: string): Promise<{ inside: number; exec: number }> {
  const exec: number[] = [];
  const inside: number[] = [];
  const timeProbe =
    "const t = process.hrtime.bigint(); try { require('child_process').execFileSync('node', ['/app/bin/healthcheck.js']) } catch {} " +
    'console.log(Number(process.hrtime.bigint() - t) / 1e6)';
  for (let i = 0; i < 5; i++) {
    exec.push((await podman(['exec', name, 'node', '/app/bin/healthcheck.js'])).ms);
    inside.push(Number((await podman(['exec', name, 'node', '-e', timeProbe])).stdout.trim()));
  }
  return { inside: median(inside), exec: median(exec) };
}

/**
 * Runs a one-shot container (`podman run` arguments after `run`, the image and command included) to its end:
 * detached, so that stdout and stderr hold only what the container wrote (podman's own messages, such as its
 * systemd healthcheck timer errors, go to podman's stderr), then its exit code and logs; the container is removed.
 */
async function runOneShot(name: string, args: string[]): Promise<Run> {
  const startedAt = performance.now();
  try {
    await podmanOk(['run', '-d', '--name', name, ...args], `start ${name}`);
    const code = Number((await podmanOk(['wait', name], `wait for ${name}`)).stdout.trim());
    const ms = performance.now() - startedAt;
    const logs = await podmanOk(['logs', name], `podman logs ${name}`);
    return { code, stdout: logs.stdout, stderr: logs.stderr, ms };
  } finally {
    await podman(['rm', '-f', '-v', '-t', '0', name]);
  }
}

async function healthcheck(name: string): Promise<Run> {
  return podman(['healthcheck', 'run', name], 30_000);
}

async function main(): Promise<void> {
  const pgDir = mkdtempSync(join(tmpdir(), 'wa-lake-container-pg-'));
  const containers: string[] = [];
  const volumes = [`${prefix}-outbox`, `${prefix}-collector-auth`, `${prefix}-collector-outbox`];
  let postgres: RunningPostgres | null = null;
  let temporal: RunningTemporalDevServer | null = null;
  try {
    // Its own temp folder: embedded-postgres hands it to the `postgres` user it runs as (root cannot).
    postgres = await startEmbeddedPostgres({ dataDir: pgDir, database: 'wa_lake_container' });
    temporal = await startTemporalDevServer({ cliPath: resolveTemporalCliPath(process.env), uiPort: null });
    const ingestPort = await findFreePort();
    // No --init: podman's needs catatonit, which Debian bookworm lacks; node as PID 1 handles SIGTERM itself.
    const base = ['run', '--network', 'host'];
    const common = ['-e', `TEMPORAL_ADDRESS=${temporal.address}`, '-e', `WHATSAPP_WEBHOOK_SECRET=${SECRET}`];

    // migrate (one-shot), then the two long-running delivery processes.
    const migrate = await runOneShot(`${prefix}-migrate`, [
      '--network',
      'host',
      '-e',
      `DATABASE_URL=${postgres.databaseUrl}`,
      IMAGE,
      'migrate',
    ]);
    check(
      migrate.code === 0,
      `migrate container exits 0 (${Math.round(migrate.ms)} ms) ${migrate.code === 0 ? '' : migrate.stderr}`
    );
    checkJsonLines('migrate', `${migrate.stdout}\n${migrate.stderr}`);
    // An unknown command gets commander's answer from the command index, never a module's failure to load.
    const typo = await podman([...base, '--rm', IMAGE, 'colector']);
    check(
      typo.code === 1 &&
        typo.stderr.includes("error: unknown command 'colector'") &&
        typo.stderr.includes('(Did you mean collector?)') &&
        !/^\s+at /m.test(typo.stderr),
      `an unknown command exits 1 with commander's message and suggestion, no stack trace (exit ${typo.code}) ` +
        (typo.code === 1 ? '' : typo.stderr.trim().split('\n').slice(0, 3).join(' | '))
    );
    const ingest = `${prefix}-ingest-api`;
    const worker = `${prefix}-worker`;
    containers.push(ingest, worker);
    await podmanOk(
      [
        ...base,
        '-d',
        '--name',
        ingest,
        ...common,
        '-e',
        `DATABASE_URL=${postgres.databaseUrl}`,
        '-e',
        `INGEST_PORT=${ingestPort}`,
        IMAGE,
        'ingest-api',
      ],
      'start ingest-api'
    );
    await podmanOk(
      [
        ...base,
        '-d',
        '--name',
        worker,
        ...common,
        '-e',
        `WEBHOOK_URL=http://127.0.0.1:${ingestPort}/api/webhooks/whatsapp`,
        IMAGE,
        'worker',
      ],
      'start worker'
    );
    // One image, one HEALTHCHECK: each container's check follows its command (no compose override).
    await poll('ingest-api healthy', 90_000, async () => ((await healthcheck(ingest)).code === 0 ? true : null));
    check(true, 'ingest-api container healthy (image HEALTHCHECK, no override)');
    await poll('worker healthy', 90_000, async () => ((await healthcheck(worker)).code === 0 ? true : null));
    check(true, 'worker container healthy (image HEALTHCHECK, no override)');

    // The replay through a fresh outbox volume: the lake must equal the capture's distinct kept events.
    const replay = await runOneShot(`${prefix}-replay`, [
      '--network',
      'host',
      ...common,
      '-v',
      `${volumes[0]}:/data/outbox`,
      '-v',
      `${CAPTURE}:/capture/capture.jsonl:ro`,
      IMAGE,
      'replay',
      '/capture/capture.jsonl',
      '--wait-ms',
      '120000',
    ]);
    check(replay.code === 0, `replay container exits 0 (${Math.round(replay.ms)} ms)`);
    checkJsonLines('replay', `${replay.stdout}\n${replay.stderr}`);
    check(
      /"msg":"read \d+ lines: .*still pending/.test(replay.stdout),
      'replay container writes its summary as a JSON record'
    );
    const expected = [...expectedDistinctEventIds(CAPTURE)].sort();
    const client = new pg.Client({ connectionString: postgres.databaseUrl });
    await client.connect();
    let lake: string[] = [];
    try {
      lake = await poll('the lake to hold every kept event', 180_000, async () => {
        const rows = await client.query<{ event_id: string }>(
          'SELECT event_id FROM whatsapp_event_logs ORDER BY event_id'
        );
        const ids = rows.rows.map((row) => row.event_id);
        return ids.length >= expected.length ? ids : null;
      });
    } finally {
      await client.end();
    }
    check(
      JSON.stringify(lake) === JSON.stringify(expected),
      `lake holds exactly the ${expected.length} distinct kept events of examples/capture.jsonl (has ${lake.length})`
    );

    // The dashboard starts in the image (it reads ECharts' browser bundle as it starts) and serves its pages
    // behind its token.
    const dashboard = `${prefix}-dashboard`;
    containers.push(dashboard);
    const dashboardPort = await findFreePort();
    await podmanOk(
      [
        ...base,
        '-d',
        '--name',
        dashboard,
        '-e',
        `DATABASE_URL=${postgres.databaseUrl}`,
        '-e',
        `DASHBOARD_TOKEN=${DASHBOARD_TOKEN}`,
        '-e',
        `DASHBOARD_PORT=${dashboardPort}`,
        IMAGE,
        'dashboard',
      ],
      'start dashboard'
    );
    const dashboardUrl = `http://127.0.0.1:${dashboardPort}`;
    const withToken = { headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` } };
    const page = await poll('the dashboard to answer', 60_000, async () => {
      const state = await podman(['inspect', '--format', '{{.State.Running}}', dashboard]);
      if (state.stdout.trim() !== 'true') {
        const logs = await podman(['logs', dashboard]);
        throw new Error(`the dashboard container stopped: ${`${logs.stdout}${logs.stderr}`.trim().slice(0, 400)}`);
      }
      return fetch(`${dashboardUrl}/`, withToken).catch(() => null);
    });
    const pageText = await page.text();
    check(
      page.status === 200 && pageText.includes('<script src="/assets/echarts.min.js">'),
      `dashboard container serves its page with the token (HTTP ${page.status})`
    );
    const bundle = await fetch(`${dashboardUrl}/assets/echarts.min.js`, withToken);
    const bundleBytes = (await bundle.arrayBuffer()).byteLength;
    check(
      bundle.status === 200 && bundleBytes > 100_000,
      `dashboard container serves the ECharts bundle (HTTP ${bundle.status}, ${bundleBytes} bytes)`
    );
    const refusedPage = await fetch(`${dashboardUrl}/`);
    await refusedPage.arrayBuffer();
    check(
      refusedPage.status === 401,
      `dashboard container refuses a request without the token (HTTP ${refusedPage.status})`
    );
    await podman(['stop', '-t', '10', dashboard], 60_000);
    await checkJsonLogs(dashboard);

    // User, read-only code, writable /data, volume ownership.
    const uid = await podman(['exec', worker, 'id', '-u']);
    check(uid.stdout.trim() === '1000', `processes run as uid 1000 (id -u: ${uid.stdout.trim()})`);
    const writable = await podman(['exec', worker, 'find', '/app', '-writable', '-print', '-quit']);
    check(
      writable.code === 0 && writable.stdout.trim() === '',
      `nothing under /app is writable by uid 1000 ${writable.stdout.trim()}`
    );
    const owner = await podman(['exec', worker, 'stat', '-c', '%U:%G %a', '/app/dist', '/app/node_modules']);
    check(
      /^root:root 755\nroot:root 755$/.test(owner.stdout.trim()),
      `code owned by root, mode 755 (${owner.stdout.trim().replace('\n', ', ')})`
    );
    // What the prune kept must still load: echarts' CommonJS bundle (wa-lake report renders with it).
    const charts = await podman([
      'exec',
      worker,
      'node',
      '-e',
      "require('/app/node_modules/echarts').init(null, null, { renderer: 'svg', ssr: true, width: 10, height: 10 }).dispose()",
    ]);
    check(charts.code === 0, `echarts renders server-side in the pruned image ${charts.stderr.trim().slice(0, 200)}`);
    const data = await podman(['exec', worker, 'sh', '-c', 'touch /data/probe && rm /data/probe']);
    check(data.code === 0, '/data is writable by uid 1000');
    const volumeOwner = await podman([
      'run',
      '--rm',
      '-v',
      `${volumes[0]}:/data/outbox`,
      '--entrypoint',
      'stat',
      IMAGE,
      '-c',
      '%u:%g',
      '/data/outbox',
      '/data/outbox/outbox.sqlite',
    ]);
    check(
      volumeOwner.stdout.trim() === '1000:1000\n1000:1000',
      `named outbox volume and its outbox owned by 1000:1000 (${volumeOwner.stdout.trim().replace('\n', ', ')})`
    );

    // Collectors: WhatsApp is unreachable here (or unlinked), so each turns unhealthy after the allowed time.
    // All of them use the same two volumes, as successive containers of one deployment do.
    const collectorArgs = [
      ...common,
      '-e',
      'HEALTHCHECK_WHATSAPP_DOWN_MS=3000',
      '-v',
      `${volumes[1]}:/data/auth`,
      '-v',
      `${volumes[2]}:/data/outbox`,
      IMAGE,
      'collector',
    ];
    const collectors: string[] = [];
    const startCollector = async (): Promise<string> => {
      const name = `${prefix}-collector-${collectors.length + 1}`;
      containers.push(name);
      collectors.push(name);
      await podmanOk([...base, '-d', '--name', name, ...collectorArgs], `start ${name}`);
      return name;
    };
    let lastStartedAt: string | undefined;
    /** Waits for this collector's first status (a start after the previous collector's): it holds the locks. */
    const waitUntilRunning = async (name: string): Promise<void> => {
      const status = await poll(`${name} to write its status file`, 90_000, async () => {
        const current = parseStatus((await podman(['exec', name, 'cat', STATUS_FILE])).stdout);
        return current.startedAt !== undefined && current.startedAt !== lastStartedAt && current.stoppedAt == null
          ? current
          : null;
      });
      lastStartedAt = status.startedAt;
    };
    /** SIGTERM through `podman stop` (SIGKILL after 10 s, as `docker stop`): timed, exit code, stop record. */
    const stopCollector = async (name: string, state: string): Promise<void> => {
      const stop = await podman(['stop', '-t', '10', name], 60_000);
      figures.push(`collector stop, ${state} (podman stop -t 10): ${Math.round(stop.ms)} ms`);
      check(stop.ms < STOP_BUDGET_MS, `${name} stops within 5 s of SIGTERM, ${state} (${Math.round(stop.ms)} ms)`);
      const exit = await podman(['inspect', '--format', '{{.State.ExitCode}}', name]);
      check(exit.stdout.trim() === '0', `${name} exits 0 on SIGTERM (exit ${exit.stdout.trim()}, 137 = SIGKILL)`);
      const status = parseStatus(
        (await podman(['run', '--rm', '-v', `${volumes[2]}:/data/outbox`, '--entrypoint', 'cat', IMAGE, STATUS_FILE]))
          .stdout
      );
      check(
        typeof status.stoppedAt === 'string' && status.startedAt === lastStartedAt,
        `${name} recorded its stop in the status file (stoppedAt ${String(status.stoppedAt)})`
      );
    };

    const first = await startCollector();
    // The status file first shows the session connecting; after HEALTHCHECK_WHATSAPP_DOWN_MS the check fails.
    const reason = await poll('the collector to report no WhatsApp connection', 60_000, async () => {
      const run = await podman(['exec', first, 'node', '/app/bin/healthcheck.js']);
      return run.code === 1 && run.stdout.includes('no WhatsApp connection') ? run : null;
    });
    check(true, `collector healthcheck says why: ${reason.stdout.trim()}`);
    await waitUntilRunning(first);
    const unhealthy = await healthcheck(first);
    check(
      unhealthy.code !== 0,
      `collector without WhatsApp is unhealthy for podman healthcheck run (${unhealthy.stdout.trim()})`
    );
    for (const name of [worker, first]) {
      const times = await timeProbes(name);
      figures.push(
        `healthcheck probe of ${name.slice(prefix.length + 1)}, median of 5: ${Math.round(times.inside)} ms inside ` +
          `the container (node /app/bin/healthcheck.js), ${Math.round(times.exec)} ms with podman exec`
      );
      check(times.inside < 1_000, `${name} healthcheck probe well under 1 s (median ${Math.round(times.inside)} ms)`);
    }

    // One collector per session and outbox, also across containers: a second one on the same volumes is refused.
    // Detached, so that its log holds only what the container wrote (podman's own warnings go to podman's stderr).
    const refused = `${prefix}-collector-refused`;
    containers.push(refused);
    await podmanOk([...base, '-d', '--name', refused, ...collectorArgs], `start ${refused}`);
    const refusedExit = (await podmanOk(['wait', refused], `wait for ${refused}`)).stdout.trim();
    const refusedLogs = await podmanOk(['logs', refused], `podman logs ${refused}`);
    check(
      refusedExit === '1' &&
        `${refusedLogs.stdout}${refusedLogs.stderr}`.includes('another collector is already running'),
      `a second collector container on the same volumes is refused (exit ${refusedExit})`
    );
    checkJsonLines(refused, `${refusedLogs.stdout}\n${refusedLogs.stderr}`);

    // Stop times in each state; between them, new containers take the volumes over.
    await stopCollector(first, 'Temporal up, WhatsApp unreachable');
    const second = await startCollector();
    await waitUntilRunning(second);
    check(true, `${second} starts on the volumes of a stopped collector`);
    await podmanOk(['kill', '--signal', 'KILL', second], `kill ${second}`);
    await podmanOk(['wait', second], `wait for ${second}`);
    const third = await startCollector();
    await waitUntilRunning(third);
    check(true, `${third} starts on the volumes of a SIGKILLed collector (its lock went with its process)`);
    // Temporal killed under a running collector: the stop must still fit the budget.
    await temporal.kill();
    temporal = null;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await stopCollector(third, 'Temporal killed under it, WhatsApp unreachable');
    const fourth = await startCollector();
    await waitUntilRunning(fourth);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await stopCollector(fourth, 'Temporal down from the start, WhatsApp unreachable');

    for (const name of [worker, ingest]) {
      const stop = await podman(['stop', '-t', '30', name], 60_000);
      figures.push(`${name.slice(prefix.length + 1)} stop (Temporal down): ${Math.round(stop.ms)} ms`);
    }
    for (const name of [...collectors, worker, ingest]) await checkJsonLogs(name);
  } finally {
    // -v: also the anonymous volumes the image's VOLUME lines gave the containers that mounted none.
    for (const name of containers) await podman(['rm', '-f', '-v', '-t', '0', name]);
    await podman(['volume', 'rm', '-f', ...volumes]);
    await temporal?.stop().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    rmSync(pgDir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (err) {
  failures.push(err instanceof Error ? err.message : String(err));
  process.stdout.write(`FAIL ${failures.at(-1)}\n`);
}
for (const figure of figures) process.stdout.write(`figure: ${figure}\n`);
process.stdout.write(
  failures.length === 0 ? 'container check: all checks ok\n' : `container check: ${failures.length} check(s) failed\n`
);
process.exitCode = failures.length === 0 ? 0 : 1;
