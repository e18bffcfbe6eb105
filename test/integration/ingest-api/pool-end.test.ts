import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createRootLogger } from '../../../common/logger.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../../dev-stack/embedded-postgres.js';
import { createPool } from '../../../lake/pool.js';

interface LogRecord {
  level: number;
  msg: string;
  err?: Record<string, unknown>;
}

const WARN = 40;

function capturingLogger(records: LogRecord[]) {
  return createRootLogger({
    level: 'debug',
    destination: { write: (line: string) => void records.push(JSON.parse(line) as LogRecord) },
  });
}

/** Opens `count` connections at once and returns them to the pool, so the pool holds `count` idle clients. */
async function openIdleClients(pool: pg.Pool, count: number): Promise<void> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  for (const client of clients) client.release();
}

async function backendsOf(databaseUrl: string, applicationName: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [applicationName]
    );
    return rows[0]?.n ?? -1;
  } finally {
    await client.end();
  }
}

function withApplicationName(databaseUrl: string, applicationName: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

// `npm run demo` ended with "idle database client failed … terminating connection due to
// administrator command" because pg-pool's end() resolved before PostgreSQL had closed the connections,
// and the local stack stops PostgreSQL right after ending the ingest pool.
describe('createPool end()', () => {
  const dirs: string[] = [];
  const servers: RunningPostgres[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('resolves only once PostgreSQL holds no connection of the pool', async () => {
    const databaseUrl = inject('databaseUrl');
    const applicationName = `pool-end-${process.pid}`;
    const pool = createPool(withApplicationName(databaseUrl, applicationName), { max: 6 });
    let connectionsClosed = 0;
    pool.on('connect', (client) => client.once('end', () => (connectionsClosed += 1)));
    await openIdleClients(pool, 6);
    expect(await backendsOf(databaseUrl, applicationName)).toBe(6);

    await pool.end();

    expect(connectionsClosed).toBe(6);
    expect(await backendsOf(databaseUrl, applicationName)).toBe(0);
  });

  it('lets PostgreSQL stop right after it without a warning from the pool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-pool-end-'));
    dirs.push(dir);
    chmodSync(dir, 0o755); // PostgreSQL runs as the `postgres` user
    const postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres'), database: 'wa_lake' });
    servers.push(postgres);
    const records: LogRecord[] = [];
    const pool = createPool(postgres.databaseUrl, { max: 8, logger: capturingLogger(records) });
    await openIdleClients(pool, 8);

    await pool.end();
    await postgres.stop();
    // An error from a connection the server closed would arrive on the next turns of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(records.filter((record) => record.level >= WARN)).toEqual([]);
  });

  it('logs an idle client failing while the pool ends at debug level, one failing before at warn, never the client', async () => {
    const records: LogRecord[] = [];
    const pool = createPool(inject('databaseUrl'), { max: 2, logger: capturingLogger(records) });
    const clients: pg.PoolClient[] = [];
    pool.on('connect', (client) => clients.push(client));
    await openIdleClients(pool, 2);
    // What pg's client does when the server sends an error to an idle connection: pg-pool's idle
    // listener turns it into the pool's 'error' event.
    clients[0]!.emit('error', new Error('terminating connection due to administrator command'));
    const ending = pool.end();
    clients[1]!.emit('error', new Error('terminating connection due to administrator command'));
    await ending;

    const idleFailures = records.filter((record) => record.msg.startsWith('idle database client failed'));
    expect(idleFailures.map((record) => record.level)).toEqual([WARN, 20]);
    // pg-pool attaches the whole pg.Client to the error (err.client): the line names its class only.
    expect(idleFailures[0]?.err).toMatchObject({ client: '[Client]' });
    expect(JSON.stringify(idleFailures)).not.toContain('connectionParameters');
  });
});
