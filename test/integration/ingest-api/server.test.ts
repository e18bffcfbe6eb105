import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../helpers/silent-logger.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { startIngestServer } from '../../../ingest-api/server.js';
import { SECRET_A, messageBody, postSigned } from '../../helpers/ingest-test-server.js';

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

  it('answers GET /metrics only with the METRICS_TOKEN bearer token when one is set (ADR 0014 decision 8)', async () => {
    const token = `metrics-${randomUUID()}`;
    const config = loadIngestConfig({
      DATABASE_URL: inject('databaseUrl'),
      WHATSAPP_WEBHOOK_SECRET: SECRET_A,
      INGEST_PORT: '0',
      METRICS_TOKEN: token,
    });
    const server = await startIngestServer({ config, logger: silentLogger() });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-of-some-length', `Basic ${token}`, token]) {
        const refused = await fetch(`${server.url}/metrics`, {
          headers: authorization === undefined ? {} : { authorization },
        });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect(((await refused.json()) as { code: string }).code).toBe('WA_ERR_METRICS_UNAUTHORIZED');
      }
      const allowed = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('process_cpu_seconds_total');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a METRICS_TOKEN shorter than 16 characters', () => {
    expect(() =>
      loadIngestConfig({
        DATABASE_URL: inject('databaseUrl'),
        WHATSAPP_WEBHOOK_SECRET: SECRET_A,
        METRICS_TOKEN: 'short',
      })
    ).toThrow(/METRICS_TOKEN/);
  });
});
