import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../helpers/silent-logger.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { startIngestServer } from '../../../ingest-api/server.js';
import { SECRET_A, messageBody, postSigned } from './ingest-test-server.js';

describe('startIngestServer', () => {
  it('listens on the configured host with port 0, stores a signed event, and closes cleanly twice', async () => {
    const config = loadIngestConfig({
      DATABASE_URL: inject('databaseUrl'),
      WHATSAPP_WEBHOOK_SECRET: SECRET_A,
      INGEST_PORT: '0',
    });
    const server = await startIngestServer({ config, logger: silentLogger() });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await postSigned(server.url, messageBody(), { eventId: randomUUID() })).status).toBe(201);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('process_cpu_seconds_total');
    await server.close();
    await server.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
