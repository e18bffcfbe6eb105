import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-schema.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';

describe('loadIngestConfig', () => {
  it('applies the documented defaults and splits rotated secrets', () => {
    const config = loadIngestConfig({
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/lake',
      WHATSAPP_WEBHOOK_SECRET: 'first-secret-0123456789, second-secret-0123456789',
    });
    expect(config).toEqual({
      databaseUrl: 'postgres://u:p@127.0.0.1:5432/lake',
      webhookSecrets: ['first-secret-0123456789', 'second-secret-0123456789'],
      host: '127.0.0.1',
      port: 8080,
      bodyLimitBytes: 4 * 1024 * 1024,
      databasePoolMax: 10,
      concurrentStatements: 1,
      logLevel: 'info',
      metricsToken: null,
      trustProxy: false,
      erasureKey: null,
      retentionPeriodMs: null,
      retentionIntervalMs: 6 * 3_600_000,
      internalSignatureToleranceMs: 5 * 60_000,
      // ADR 0014: request guards.
      limits: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        maxConnections: 256,
        maxConnectionsPerAddress: 128,
        keepAliveTimeoutMs: 5_000,
        sendBodyLimitBytes: 64 * 1024,
        authFailuresMax: 20,
        authFailureWindowMs: 60_000,
        sendKeyRequestsMax: 120,
        sendKeyWindowMs: 60_000,
      },
      send: {
        temporal: {
          address: '127.0.0.1:7233',
          namespace: 'default',
          connectionOptions: { address: '127.0.0.1:7233' },
          summary: { tls: 'off', apiKey: false },
        },
        payloadEncryptionKeys: undefined,
        taskQueue: 'wa-lake-delivery',
        textMaxChars: 4096,
        webhookDisableAfterMs: 432_000_000,
        startTimeoutMs: 2000,
        sweepIntervalMs: 5000,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('trusts no proxy by default and only the proxy addresses or ranges INGEST_TRUST_PROXY lists', () => {
    const base = { DATABASE_URL: 'postgresql://lake', WHATSAPP_WEBHOOK_SECRET: 'a-long-enough-secret-1' };
    expect(loadIngestConfig(base).trustProxy).toBe(false);
    expect(loadIngestConfig({ ...base, INGEST_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadIngestConfig({ ...base, INGEST_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
    ]);
    for (const value of ['true', '10.0.0.0/33', 'proxy.example']) {
      expect(() => loadIngestConfig({ ...base, INGEST_TRUST_PROXY: value })).toThrow(/INGEST_TRUST_PROXY/);
    }
  });

  it('accepts port 0 and lists every invalid key at once', () => {
    expect(
      loadIngestConfig({
        DATABASE_URL: 'postgresql://lake',
        WHATSAPP_WEBHOOK_SECRET: 'a-long-enough-secret-1',
        INGEST_PORT: '0',
      }).port
    ).toBe(0);
    try {
      loadIngestConfig({ WHATSAPP_WEBHOOK_SECRET: 'short', INGEST_PORT: 'http', DATABASE_POOL_MAX: '0' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const keys = (err as ConfigError).issues.map((issue) => issue.split(/[:.]/)[0]);
      expect(keys).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'WHATSAPP_WEBHOOK_SECRET', 'INGEST_PORT', 'DATABASE_POOL_MAX'])
      );
    }
  });

  it('refuses a DATABASE_URL that is not a postgres connection string, instead of answering 503 forever', () => {
    for (const DATABASE_URL of ['hello', 'mysql://u:p@db/lake']) {
      expect(() => loadIngestConfig({ DATABASE_URL, WHATSAPP_WEBHOOK_SECRET: 'a-long-enough-secret-1' })).toThrow(
        /DATABASE_URL: must be a postgres/
      );
    }
  });

  it('parses RETENTION_PERIOD into ms and rejects other forms (ADR 0010)', () => {
    const base = {
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/lake',
      WHATSAPP_WEBHOOK_SECRET: 'a-long-enough-secret-1',
    };
    expect(loadIngestConfig({ ...base, RETENTION_PERIOD: '90d' }).retentionPeriodMs).toBe(90 * 86_400_000);
    expect(() => loadIngestConfig({ ...base, RETENTION_PERIOD: '3 months' })).toThrow(/RETENTION_PERIOD: .*90d/);
  });
});
