import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type RunningPostgres } from '../../../dev-stack/embedded-postgres.js';
import { runMigrations } from '../../../lake/migrate.js';
import {
  messageBody,
  postSigned,
  startTestIngestServer,
  type TestIngestServer,
} from '../../helpers/ingest-test-server.js';

// A PostgreSQL of its own: this file stops and restarts it, which the shared test database must not see.
let dataDir: string;
let postgres: RunningPostgres | undefined;
let server: TestIngestServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-db-down-'));
  postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_down' });
  await runMigrations({ databaseUrl: postgres.databaseUrl });
  server = await startTestIngestServer(postgres.databaseUrl);
});
afterAll(async () => {
  await server.close();
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function countRows(eventId: string): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE event_id = $1',
    [eventId]
  );
  return rows[0]?.n ?? -1;
}

describe('ingest API while the database is down', () => {
  it('answers 503 with Retry-After, writes nothing, and stores with 201 once the database is back', async () => {
    const warm = await postSigned(server.url, messageBody());
    expect(warm.status).toBe(201);
    const port = postgres?.port;
    await postgres?.stop();
    postgres = undefined;

    const eventId = randomUUID();
    const body = messageBody();
    const down = await postSigned(server.url, body, { eventId });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(down.json['code']).toBe('WA_ERR_DATABASE_UNAVAILABLE');
    expect(Object.keys(down.json).sort()).toEqual(['code', 'error']);
    expect(JSON.stringify(down.json)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|password/);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_down', port });
    expect(await countRows(eventId)).toBe(0);
    const back = await postSigned(server.url, body, { eventId });
    expect(back.status).toBe(201);
    expect(await countRows(eventId)).toBe(1);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
