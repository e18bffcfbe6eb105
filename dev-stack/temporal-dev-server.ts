import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../workflows/contracts.js';
import { trackChildProcess } from './child-processes.js';
import { removeTemporalPidFile, writeTemporalPidFile } from './leftover-temporal-server.js';
import { assertPortFree, findFreePort } from './tcp-ports.js';

/** A running `temporal server start-dev` process. */
export interface RunningTemporalDevServer {
  /** gRPC frontend, `127.0.0.1:<port>` (TEMPORAL_ADDRESS). */
  address: string;
  /** Web UI URL, or null when started headless. */
  uiUrl: string | null;
  /** The `temporal` process's pid. */
  pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and waits for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILLs the server, as a crash would stop it, and waits for the exit (tests of durability). */
  kill(): Promise<void>;
  /**
   * Resolves if the server exits without {@link RunningTemporalDevServer.stop} or `kill()` (crash, kill -9
   * from outside); never otherwise. Lets `wa-lake dev` say so instead of leaving only retry warnings.
   */
  unexpectedExit: Promise<TemporalDevServerExit>;
}

/** How the dev server process ended. */
export interface TemporalDevServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * SQLite pragmas of a dev server with a state file (ADR 0008): WAL lets the history service's many
 * small transactions append to one log instead of rewriting pages through a rollback journal (2.0–2.5×
 * the default file's workflow ceiling), and `synchronous=FULL` fsyncs the log at every
 * commit, so a start Temporal acknowledged survives a crash of the machine, not only of the process.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: Readonly<Record<string, string>> = {
  journal_mode: 'wal',
  synchronous: 'FULL',
};

/** Thrown when the dev server exits or does not answer before `startTimeoutMs`. */
export class TemporalDevServerStartError extends Error {
  override readonly name = 'TemporalDevServerStartError';
  constructor(
    message: string,
    /** Whether the process exited before its frontend answered (a port taken meanwhile does that). */
    readonly hasExited = false
  ) {
    super(message);
  }
}

/** Tries of a start on ports chosen here (see {@link startTemporalDevServer}). */
const CHOSEN_PORT_START_ATTEMPTS = 3;

type DevServerOptions = Parameters<typeof startTemporalDevServerOnce>[0];

/**
 * Starts the dev server ({@link startTemporalDevServerOnce} says how). Ports chosen here are free when chosen, not
 * necessarily when the server binds them: another process may take one in between, and the server then exits at
 * once. A start on chosen ports that exits early gets fresh ports and another try; given ports are never changed.
 *
 * @throws TemporalDevServerStartError when the process exits early or never answers.
 */
export async function startTemporalDevServer(options: DevServerOptions): Promise<RunningTemporalDevServer> {
  const portsChosen = options.port === undefined && typeof options.uiPort !== 'number';
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startTemporalDevServerOnce(options);
    } catch (err) {
      const isPortRace = err instanceof TemporalDevServerStartError && err.hasExited;
      if (!portsChosen || !isPortRace || attempt >= CHOSEN_PORT_START_ATTEMPTS) throw err;
    }
  }
}

/**
 * One start of the official `temporal` CLI's dev server with the wa-lake search attributes registered
 * (architecture.md §7: `WaDeliveryState`, `WaEventType`, `WaChatJid` Keyword; `WaLastHttpStatus` Int) and waits
 * until its frontend accepts a connection.
 *
 * @param options.cliPath - from `resolveTemporalCliPath(env)`.
 * @param options.dbFile - SQLite state file, opened with {@link DEV_SERVER_SQLITE_PRAGMAS}; in-memory when
 *   omitted (state lost on exit).
 * @param options.port / uiPort - free ports are chosen when omitted; `uiPort: null` starts headless.
 * @param options.startTimeoutMs - how long to wait for the frontend (default 60 000 ms).
 * @throws TemporalDevServerStartError when the process exits early or never answers.
 */
async function startTemporalDevServerOnce(options: {
  cliPath: string;
  dbFile?: string;
  port?: number;
  uiPort?: number | null;
  namespace?: string;
  startTimeoutMs?: number;
  onLog?: (line: string) => void;
  /** Web UI remote codec endpoint (`--ui-codec-endpoint`, architecture.md §14), e.g. `http://127.0.0.1:8234/<token>`. */
  uiCodecEndpoint?: string;
  /**
   * Where the server's pid is kept while it runs (`findLeftoverTemporalServer` reads it): a start on the same data
   * folder after this process was killed stops the server it left behind.
   */
  pidFile?: string;
}): Promise<RunningTemporalDevServer> {
  const port = options.port ?? (await findFreePort());
  const uiPort = options.uiPort === null ? null : (options.uiPort ?? (await findFreePort()));
  if (options.port !== undefined) await assertPortFree(port, 'the Temporal frontend (--temporal-port)');
  if (typeof options.uiPort === 'number') await assertPortFree(options.uiPort, 'the Temporal Web UI (--ui-port)');
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (options.dbFile) {
    args.push('--db-filename', options.dbFile);
    for (const [pragma, value] of Object.entries(DEV_SERVER_SQLITE_PRAGMAS))
      args.push('--sqlite-pragma', `${pragma}=${value}`);
  }
  if (options.uiCodecEndpoint && uiPort !== null) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.namespace && options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const attribute of SEARCH_ATTRIBUTE_DEFINITIONS)
    args.push('--search-attribute', `${attribute.name}=${attribute.cliType}`);

  const child = spawn(options.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // On a forced exit there is no time for a graceful stop; its SQLite state survives a kill.
  trackChildProcess(child, 'SIGKILL');
  const { pidFile } = options;
  const childPid = child.pid;
  if (pidFile && childPid !== undefined) {
    writeTemporalPidFile(pidFile, childPid);
    child.once('exit', () => removeTemporalPidFile(pidFile, childPid));
  }
  const recentLines: string[] = [];
  const forward = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      recentLines.push(line);
      if (recentLines.length > 5) recentLines.shift();
      options.onLog?.(line);
    }
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const exitInfo = new Promise<TemporalDevServerExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal }))
  );
  const exited = exitInfo.then((exit) => exit.code);
  let isStopping = false;
  const unexpectedExit = exitInfo.then((exit) => (isStopping ? new Promise<TemporalDevServerExit>(() => {}) : exit));

  const address = `127.0.0.1:${port}`;
  try {
    await waitForFrontend(address, child, exited, options.startTimeoutMs ?? 60_000);
  } catch (err) {
    const ports = `ports ${port} (gRPC)${uiPort === null ? '' : ` and ${uiPort} (Web UI)`}`;
    throw new TemporalDevServerStartError(
      `${err instanceof Error ? err.message : String(err)}; are ${ports} free? Last output: ${recentLines.join(' | ') || '(none)'}`,
      err instanceof TemporalDevServerStartError && err.hasExited
    );
  }
  return {
    address,
    uiUrl: uiPort === null ? null : `http://127.0.0.1:${uiPort}`,
    pid: child.pid ?? -1,
    stop: () => {
      isStopping = true;
      return stopChild(child, exited);
    },
    kill: async () => {
      isStopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    unexpectedExit,
  };
}

async function waitForFrontend(
  address: string,
  child: ChildProcess,
  exited: Promise<number | null>,
  timeoutMs: number
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  while (Date.now() < deadline) {
    if (hasExited)
      throw new TemporalDevServerStartError(`temporal dev server exited with code ${child.exitCode}`, true);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      // The frontend answers before the default namespace is registered; wait for it too.
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      await connection.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  child.kill('SIGKILL');
  throw new TemporalDevServerStartError(`temporal dev server did not answer on ${address} within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
