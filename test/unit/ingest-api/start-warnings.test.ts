import { describe, expect, it } from 'vitest';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { ingestStartWarnings } from '../../../ingest-api/start-warnings.js';

// docs/configuration.md promises a warning at start when payloads go to Temporal in clear; ADR 0028 adds one for
// an open /metrics on an address other machines reach.
const REQUIRED = { DATABASE_URL: 'postgres://x', WHATSAPP_WEBHOOK_SECRET: 'a3f1c9e07b2d4e6f8a1b3c5d7e9f0a2b' };
const KEYS = 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';
const TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

const keysOf = (env: Record<string, string>): string[] =>
  ingestStartWarnings(loadIngestConfig({ ...REQUIRED, ...env })).map((warning) => warning.key);

describe('ingest API start warnings', () => {
  it('warns that send starts carry recipients and texts in clear without PAYLOAD_ENCRYPTION_KEYS', () => {
    const [warning] = ingestStartWarnings(loadIngestConfig(REQUIRED));
    expect(warning?.key).toBe('PAYLOAD_ENCRYPTION_KEYS');
    expect(warning?.message).toContain('recipients and texts in clear');
    expect(keysOf({ PAYLOAD_ENCRYPTION_KEYS: KEYS })).toEqual([]);
  });

  it('warns about an open /metrics on 0.0.0.0 or any non-loopback address, not on loopback or with a token', () => {
    expect(keysOf({ PAYLOAD_ENCRYPTION_KEYS: KEYS, INGEST_HOST: '0.0.0.0' })).toEqual(['METRICS_TOKEN']);
    expect(keysOf({ PAYLOAD_ENCRYPTION_KEYS: KEYS, INGEST_HOST: '::' })).toEqual(['METRICS_TOKEN']);
    expect(keysOf({ PAYLOAD_ENCRYPTION_KEYS: KEYS, INGEST_HOST: '192.168.1.10' })).toEqual(['METRICS_TOKEN']);
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) {
      expect(keysOf({ PAYLOAD_ENCRYPTION_KEYS: KEYS, INGEST_HOST: host }), host).toEqual([]);
    }
    expect(keysOf({ PAYLOAD_ENCRYPTION_KEYS: KEYS, INGEST_HOST: '0.0.0.0', METRICS_TOKEN: TOKEN })).toEqual([]);
    expect(keysOf({ INGEST_HOST: '0.0.0.0' })).toEqual(['PAYLOAD_ENCRYPTION_KEYS', 'METRICS_TOKEN']);
  });
});
