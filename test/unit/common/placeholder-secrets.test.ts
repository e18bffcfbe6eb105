import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDashboardConfig } from '../../../cli/dashboard/dashboard-config.js';
import { loadCodecServerConfig } from '../../../codec-server/config.js';
import { loadCollectorConfig } from '../../../collector/config.js';
import { ConfigError } from '../../../common/config-schema.js';
import { PLACEHOLDER_MESSAGE } from '../../../common/placeholder-secrets.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { loadWorkerConfig } from '../../../worker/config.js';

// ADR 0028: a secret copied unchanged from .env.example is known to everyone who read the repository, so every
// process refuses it at start, naming the key and never echoing the value.
type Env = Record<string, string | undefined>;
const SECRET = 'a3f1c9e07b2d4e6f8a1b3c5d7e9f0a2b';
const KEYS = 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';
const INGEST: Env = { DATABASE_URL: 'postgres://wa_lake:pw@127.0.0.1/wa_lake', WHATSAPP_WEBHOOK_SECRET: SECRET };
const WORKER: Env = { WEBHOOK_URL: 'http://127.0.0.1:8080/x', WHATSAPP_WEBHOOK_SECRET: SECRET };

function issues(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

/** The `KEY=value` lines of .env.example, commented or not, whose key names a secret, token or password. */
function exampleSecrets(): Map<string, string> {
  const text = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');
  const found = new Map<string, string>();
  for (const match of text.matchAll(/^#? ?([A-Z_]*(?:SECRET|TOKEN|PASSWORD))=(\S+)$/gm)) {
    found.set(match[1] ?? '', match[2] ?? '');
  }
  return found;
}

describe('placeholder secrets', () => {
  const example = exampleSecrets();

  it('finds every secret placeholder of .env.example', () => {
    expect([...example.keys()].sort()).toEqual([
      'CODEC_SERVER_TOKEN',
      'DASHBOARD_TOKEN',
      'LAKE_POSTGRES_PASSWORD',
      'METRICS_TOKEN',
      'TEMPORAL_POSTGRES_PASSWORD',
      'WHATSAPP_WEBHOOK_SECRET',
    ]);
  });

  it('the worker, the ingest API and the collector refuse .env.example as it is, naming each key', () => {
    const dotenv = Object.fromEntries(example);
    const refusal = (key: string): string => `${key}: ${PLACEHOLDER_MESSAGE}`;
    const worker = issues(() => loadWorkerConfig({ ...WORKER, ...dotenv }));
    expect(worker).toEqual(
      expect.arrayContaining([
        refusal('WHATSAPP_WEBHOOK_SECRET.0'),
        refusal('TEMPORAL_POSTGRES_PASSWORD'),
        refusal('LAKE_POSTGRES_PASSWORD'),
      ])
    );
    const ingest = issues(() => loadIngestConfig({ ...INGEST, ...dotenv }));
    expect(ingest).toEqual(
      expect.arrayContaining([
        refusal('WHATSAPP_WEBHOOK_SECRET.0'),
        refusal('METRICS_TOKEN'),
        refusal('LAKE_POSTGRES_PASSWORD'),
      ])
    );
    expect(issues(() => loadCollectorConfig(dotenv))).toEqual(
      expect.arrayContaining([refusal('TEMPORAL_POSTGRES_PASSWORD'), refusal('LAKE_POSTGRES_PASSWORD')])
    );
    for (const value of example.values()) expect([...worker, ...ingest].join('\n')).not.toContain(value);
  });

  it('compose refuses the lake password in DATABASE_URL (lake-migrate and the ingest API)', () => {
    const url = `postgres://wa_lake:${example.get('LAKE_POSTGRES_PASSWORD') ?? ''}@lake-postgresql:5432/wa_lake`;
    expect(issues(() => loadIngestConfig({ ...INGEST, DATABASE_URL: url }))).toEqual([
      `DATABASE_URL: its password ${PLACEHOLDER_MESSAGE}`,
    ]);
  });

  it('the codec server and the dashboard refuse their placeholder tokens', () => {
    expect(
      issues(() =>
        loadCodecServerConfig({ CODEC_SERVER_TOKEN: example.get('CODEC_SERVER_TOKEN'), PAYLOAD_ENCRYPTION_KEYS: KEYS })
      )
    ).toEqual([`CODEC_SERVER_TOKEN: ${PLACEHOLDER_MESSAGE}`]);
    expect(
      issues(() =>
        loadDashboardConfig({ DATABASE_URL: INGEST['DATABASE_URL'], DASHBOARD_TOKEN: example.get('DASHBOARD_TOKEN') })
      )
    ).toEqual([`DASHBOARD_TOKEN: ${PLACEHOLDER_MESSAGE}`]);
  });

  it('refuses a blank or space-padded token at start, for the dashboard as for every other secret', () => {
    const blank = `must be at least 16 characters besides the spaces around it (it is blank or padded)`;
    for (const token of [' '.repeat(16), '\t'.repeat(20), `  short-token  ${' '.repeat(10)}`]) {
      expect(
        issues(() => loadDashboardConfig({ DATABASE_URL: INGEST['DATABASE_URL'], DASHBOARD_TOKEN: token }))
      ).toEqual([`DASHBOARD_TOKEN: ${blank}`]);
    }
    expect(
      issues(() => loadCodecServerConfig({ CODEC_SERVER_TOKEN: ' '.repeat(32), PAYLOAD_ENCRYPTION_KEYS: KEYS }))
    ).toEqual([`CODEC_SERVER_TOKEN: ${blank}`]);
    expect(issues(() => loadIngestConfig({ ...INGEST, METRICS_TOKEN: ' '.repeat(16) }))).toEqual([
      `METRICS_TOKEN: ${blank}`,
    ]);
    expect(loadDashboardConfig({ DATABASE_URL: INGEST['DATABASE_URL'], DASHBOARD_TOKEN: SECRET }).DASHBOARD_TOKEN).toBe(
      SECRET
    );
  });

  it('refuses a secret shorter than the documented 16 characters, and accepts real ones', () => {
    expect(issues(() => loadWorkerConfig({ ...WORKER, TEMPORAL_POSTGRES_PASSWORD: 'short' }))).toEqual([
      'TEMPORAL_POSTGRES_PASSWORD: must be at least 16 characters',
    ]);
    expect(issues(() => loadIngestConfig({ ...INGEST, METRICS_TOKEN: 'short' }))).toEqual([
      'METRICS_TOKEN: must be at least 16 characters',
    ]);
    const accepted = loadIngestConfig({
      ...INGEST,
      METRICS_TOKEN: SECRET,
      LAKE_POSTGRES_PASSWORD: SECRET,
      TEMPORAL_POSTGRES_PASSWORD: SECRET,
    });
    expect(accepted.metricsToken).toBe(SECRET);
    expect(JSON.stringify(loadWorkerConfig({ ...WORKER, LAKE_POSTGRES_PASSWORD: SECRET }))).not.toContain(
      'LAKE_POSTGRES_PASSWORD'
    );
  });
});
