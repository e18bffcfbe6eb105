import { z } from 'zod';
import { envInt, envLogLevel, envWebhookSecrets, parseConfig, envPostgresUrl } from '../common/config-schema.js';
import { parseRetentionPeriodMs } from './db/redact-old-message-bodies.js';

const FOUR_MIB = 4 * 1024 * 1024;

/**
 * Environment of the ingest API (DESIGN §8, §11); keys are the environment variable names.
 * `WHATSAPP_WEBHOOK_SECRET` may hold several comma-separated secrets: any one verifies (rotation).
 */
export const ingestEnvSchema = z.object({
  DATABASE_URL: envPostgresUrl,
  WHATSAPP_WEBHOOK_SECRET: envWebhookSecrets,
  INGEST_HOST: z.string().min(1).default('127.0.0.1'),
  INGEST_PORT: envInt(8080, 0, 65_535),
  INGEST_BODY_LIMIT_BYTES: envInt(FOUR_MIB, 1024, 64 * 1024 * 1024),
  DATABASE_POOL_MAX: envInt(10, 1, 200),
  LOG_LEVEL: envLogLevel,
  /** Scheduled retention (DESIGN §14): redact message bodies older than this (`90d`, `12w`, `36h`); unset = off. */
  RETENTION_PERIOD: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value) return null;
      try {
        return parseRetentionPeriodMs(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    }),
  RETENTION_INTERVAL_MS: envInt(6 * 3_600_000, 60_000, 7 * 86_400_000),
});

/** Frozen, typed configuration of the ingest API (built from {@link ingestEnvSchema}). */
export interface IngestConfig {
  readonly databaseUrl: string;
  /** One or more secrets; the first signs (collector side), any one verifies. */
  readonly webhookSecrets: readonly string[];
  readonly host: string;
  /** TCP port; 0 lets the OS choose. */
  readonly port: number;
  readonly bodyLimitBytes: number;
  readonly databasePoolMax: number;
  readonly logLevel: z.output<typeof envLogLevel>;
  /** Scheduled retention period in ms (`RETENTION_PERIOD`), or null when off. */
  readonly retentionPeriodMs: number | null;
  /** How often the scheduled retention runs, in ms. */
  readonly retentionIntervalMs: number;
}

/**
 * Parses the ingest API's environment once (house style §5).
 * @param env - usually `process.env`; tests pass explicit values.
 * @returns `{ databaseUrl, webhookSecrets: string[], host, port, bodyLimitBytes, databasePoolMax, logLevel }`.
 * @throws ConfigError listing every invalid or missing key.
 */
export function loadIngestConfig(env: Readonly<Record<string, string | undefined>>): IngestConfig {
  const parsed = parseConfig(ingestEnvSchema, env);
  return Object.freeze({
    databaseUrl: parsed.DATABASE_URL,
    webhookSecrets: Object.freeze([...parsed.WHATSAPP_WEBHOOK_SECRET]),
    host: parsed.INGEST_HOST,
    port: parsed.INGEST_PORT,
    bodyLimitBytes: parsed.INGEST_BODY_LIMIT_BYTES,
    databasePoolMax: parsed.DATABASE_POOL_MAX,
    logLevel: parsed.LOG_LEVEL,
    retentionPeriodMs: parsed.RETENTION_PERIOD,
    retentionIntervalMs: parsed.RETENTION_INTERVAL_MS,
  });
}
