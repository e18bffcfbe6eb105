import { isIP } from 'node:net';
import { z } from 'zod';
import { envErasureKey } from '../common/erasure-key.js';
import { DEFAULT_INTERNAL_SIGNATURE_TOLERANCE_MS } from '../common/internal-signature.js';
import { STATUS_WEBHOOK_DISABLE_AFTER_MS } from '../common/send-status-webhook.js';
import { envInt, envLogLevel, envWebhookSecrets, parseConfig, envPostgresUrl } from '../common/config-schema.js';
import { envPayloadEncryptionKeys, type PayloadEncryptionKeys } from '../common/payload-encryption-keys.js';
import {
  temporalConnectionEnvShape,
  withTemporalConnection,
  type TemporalConnection,
} from '../common/temporal-connection.js';
import { DEFAULT_TASK_QUEUE } from '../workflows/contracts.js';
import { parseRetentionPeriodMs } from '../lake/index.js';
import { composeSecretsEnvShape, envSecret } from '../common/placeholder-secrets.js';
import { DEFAULT_INGEST_REQUEST_LIMITS as LIMITS, type IngestRequestLimits } from './request-guards.js';

const FOUR_MIB = 4 * 1024 * 1024;

/** One proxy address (IPv4, IPv6) or CIDR range, as Fastify's `trustProxy` (proxy-addr) takes it. */
const isProxyAddress = (entry: string): boolean => {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
};

/**
 * `INGEST_TRUST_PROXY`: unset or `false` → false (the TCP peer is the client); otherwise comma-separated proxy
 * addresses or CIDR ranges (`127.0.0.1,10.0.0.0/8`). Not `true`: believing every `X-Forwarded-For` would let a
 * client choose the address the credential-failure limiter counts.
 */
const envTrustProxy = z
  .string()
  .optional()
  .transform((value, ctx): false | readonly string[] => {
    const trimmed = value?.trim() ?? '';
    if (trimmed === '' || trimmed === 'false') return false;
    const entries = trimmed.split(',').map((entry) => entry.trim());
    const bad = entries.filter((entry) => !isProxyAddress(entry));
    if (bad.length === 0) return Object.freeze(entries);
    ctx.addIssue({
      code: 'custom',
      message: `must be false or comma-separated proxy addresses or CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8); not: ${bad.join(', ')}`,
    });
    return z.NEVER;
  });

/**
 * Environment of the ingest API (architecture.md §8, §11); keys are the environment variable names.
 * `WHATSAPP_WEBHOOK_SECRET` may hold several comma-separated secrets: any one verifies (rotation).
 */
export const ingestEnvSchema = z
  .object({
    DATABASE_URL: envPostgresUrl,
    WHATSAPP_WEBHOOK_SECRET: envWebhookSecrets,
    INGEST_HOST: z.string().min(1).default('127.0.0.1'),
    INGEST_PORT: envInt(8080, 0, 65_535),
    INGEST_BODY_LIMIT_BYTES: envInt(FOUR_MIB, 1024, 64 * 1024 * 1024),
    DATABASE_POOL_MAX: envInt(10, 1, 200),
    /** Group-commit statements in flight at once (ADR 0006); 1 measured best with PostgreSQL on the same 2-core host. */
    INGEST_CONCURRENT_STATEMENTS: envInt(1, 1, 64),
    LOG_LEVEL: envLogLevel,
    /** Scheduled retention (architecture.md §14): redact message bodies older than this (`90d`, `12w`, `36h`); unset = off. */
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
    // Outbound send (architecture.md §12, ADR 0009): the API starts `sendMessage` on the normal worker's queue.
    ...temporalConnectionEnvShape,
    TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
    PAYLOAD_ENCRYPTION_KEYS: envPayloadEncryptionKeys,
    SEND_TEXT_MAX_CHARS: envInt(4096, 1, 65_536),
    SEND_API_START_TIMEOUT_MS: envInt(2_000, 100, 60_000),
    SEND_SWEEP_INTERVAL_MS: envInt(5_000, 100, 3_600_000),
    /** Internal endpoints refuse a signed timestamp further from now than this (ADR 0022, Standard Webhooks). */
    INTERNAL_SIGNATURE_TOLERANCE_MS: envInt(DEFAULT_INTERNAL_SIGNATURE_TOLERANCE_MS, 1_000, 3_600_000),
    /** A status-webhook endpoint failing this long without a success is disabled (ADR 0014 decision 8). */
    SEND_WEBHOOK_DISABLE_AFTER_MS: envInt(STATUS_WEBHOOK_DISABLE_AFTER_MS, 60_000, 90 * 86_400_000),
    // Request guards (ADR 0014): what an unauthenticated request may cost, and a key's rate.
    INGEST_REQUEST_TIMEOUT_MS: envInt(LIMITS.requestTimeoutMs, 1_000, 600_000),
    INGEST_HEADERS_TIMEOUT_MS: envInt(LIMITS.headersTimeoutMs, 1_000, 600_000),
    INGEST_MAX_CONNECTIONS: envInt(LIMITS.maxConnections, 8, 100_000),
    INGEST_MAX_CONNECTIONS_PER_ADDRESS: envInt(LIMITS.maxConnectionsPerAddress, 1, 100_000),
    INGEST_KEEP_ALIVE_TIMEOUT_MS: envInt(LIMITS.keepAliveTimeoutMs, 100, 600_000),
    /** Reverse proxies whose `X-Forwarded-For` is believed (ADR 0014); unset or `false` = none. */
    INGEST_TRUST_PROXY: envTrustProxy,
    SEND_BODY_LIMIT_BYTES: envInt(LIMITS.sendBodyLimitBytes, 1024, 4 * 1024 * 1024),
    INGEST_AUTH_FAILURES_MAX: envInt(LIMITS.authFailuresMax, 1, 1_000_000),
    INGEST_AUTH_FAILURE_WINDOW_MS: envInt(LIMITS.authFailureWindowMs, 1_000, 86_400_000),
    SEND_API_KEY_REQUESTS_MAX: envInt(LIMITS.sendKeyRequestsMax, 1, 1_000_000),
    SEND_API_KEY_WINDOW_MS: envInt(LIMITS.sendKeyWindowMs, 1_000, 86_400_000),
    /** Bearer token `GET /metrics` requires (ADR 0014 decision 8); unset = open, as on a loopback-only dev stack. */
    METRICS_TOKEN: envSecret.optional(),
    ...composeSecretsEnvShape,
    /** Key of the erasure tombstones (ADR 0027), the same `wa-lake forget` uses; unset = no event is stored once one exists. */
    ERASURE_KEY: envErasureKey,
  })
  .superRefine((config, ctx) => {
    if (config.INGEST_HEADERS_TIMEOUT_MS > config.INGEST_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['INGEST_HEADERS_TIMEOUT_MS'],
        message: `must not exceed INGEST_REQUEST_TIMEOUT_MS (${config.INGEST_REQUEST_TIMEOUT_MS})`,
      });
    }
  });

/** Frozen, typed configuration of the ingest API (built from {@link ingestEnvSchema}). */
export interface IngestConfig {
  readonly databaseUrl: string;
  /** One or more secrets; the first signs (collector side), any one verifies. */
  readonly webhookSecrets: readonly string[];
  /** How far (ms) an internal call's signed timestamp may be from now, either way. */
  readonly internalSignatureToleranceMs: number;
  readonly host: string;
  /** TCP port; 0 lets the OS choose. */
  readonly port: number;
  readonly bodyLimitBytes: number;
  readonly databasePoolMax: number;
  /** Raw-row statements the group commit keeps in flight at once (`INGEST_CONCURRENT_STATEMENTS`, ADR 0006). */
  readonly concurrentStatements: number;
  readonly logLevel: z.output<typeof envLogLevel>;
  /** Scheduled retention period in ms (`RETENTION_PERIOD`), or null when off. */
  readonly retentionPeriodMs: number | null;
  /** How often the scheduled retention runs, in ms. */
  readonly retentionIntervalMs: number;
  /** Request guards (ADR 0014): timeouts, connection and body limits, credential-failure and per-key rates. */
  readonly limits: Readonly<IngestRequestLimits>;
  /** `INGEST_TRUST_PROXY`: reverse proxies (addresses, CIDR ranges) whose `X-Forwarded-For` is believed, or false. */
  readonly trustProxy: false | readonly string[];
  /** `METRICS_TOKEN`: the bearer token `GET /metrics` requires (ADR 0014 decision 8), or null when it is open. */
  readonly metricsToken: string | null;
  /** `ERASURE_KEY` (ADR 0027): the key events are checked against erasure tombstones with, or null when unset. */
  readonly erasureKey: string | null;
  /** Outbound send (architecture.md §12): Temporal target, text limit (characters), start deadline and sweep interval (ms). */
  readonly send: {
    /** Address, namespace, TLS and API key of the `TEMPORAL_*` keys (ADR 0022). */
    readonly temporal: TemporalConnection;
    readonly taskQueue: string;
    readonly textMaxChars: number;
    readonly startTimeoutMs: number;
    readonly sweepIntervalMs: number;
    /** `SEND_WEBHOOK_DISABLE_AFTER_MS`: failing this long disables a status-webhook endpoint (ADR 0014). */
    readonly webhookDisableAfterMs: number;
    /** `PAYLOAD_ENCRYPTION_KEYS`: the payload codec of the API's Temporal client (architecture.md §14); undefined = clear. */
    readonly payloadEncryptionKeys: PayloadEncryptionKeys;
  };
}

/**
 * Parses the ingest API's environment once (house style §5).
 * @param env - usually `process.env`; tests pass explicit values.
 * @returns `{ databaseUrl, webhookSecrets: string[], host, port, bodyLimitBytes, databasePoolMax, concurrentStatements, logLevel, … }`.
 * @throws ConfigError listing every invalid or missing key.
 */
export function loadIngestConfig(env: Readonly<Record<string, string | undefined>>): IngestConfig {
  const parsed = parseConfig(ingestEnvSchema.transform(withTemporalConnection), env);
  return Object.freeze({
    databaseUrl: parsed.DATABASE_URL,
    webhookSecrets: Object.freeze([...parsed.WHATSAPP_WEBHOOK_SECRET]),
    internalSignatureToleranceMs: parsed.INTERNAL_SIGNATURE_TOLERANCE_MS,
    host: parsed.INGEST_HOST,
    port: parsed.INGEST_PORT,
    bodyLimitBytes: parsed.INGEST_BODY_LIMIT_BYTES,
    databasePoolMax: parsed.DATABASE_POOL_MAX,
    concurrentStatements: parsed.INGEST_CONCURRENT_STATEMENTS,
    logLevel: parsed.LOG_LEVEL,
    retentionPeriodMs: parsed.RETENTION_PERIOD,
    retentionIntervalMs: parsed.RETENTION_INTERVAL_MS,
    metricsToken: parsed.METRICS_TOKEN ?? null,
    trustProxy: parsed.INGEST_TRUST_PROXY,
    erasureKey: parsed.ERASURE_KEY ?? null,
    limits: Object.freeze({
      requestTimeoutMs: parsed.INGEST_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: parsed.INGEST_HEADERS_TIMEOUT_MS,
      maxConnections: parsed.INGEST_MAX_CONNECTIONS,
      maxConnectionsPerAddress: parsed.INGEST_MAX_CONNECTIONS_PER_ADDRESS,
      keepAliveTimeoutMs: parsed.INGEST_KEEP_ALIVE_TIMEOUT_MS,
      sendBodyLimitBytes: parsed.SEND_BODY_LIMIT_BYTES,
      authFailuresMax: parsed.INGEST_AUTH_FAILURES_MAX,
      authFailureWindowMs: parsed.INGEST_AUTH_FAILURE_WINDOW_MS,
      sendKeyRequestsMax: parsed.SEND_API_KEY_REQUESTS_MAX,
      sendKeyWindowMs: parsed.SEND_API_KEY_WINDOW_MS,
    }),
    send: Object.freeze({
      temporal: parsed.temporal,
      taskQueue: parsed.TEMPORAL_TASK_QUEUE,
      textMaxChars: parsed.SEND_TEXT_MAX_CHARS,
      startTimeoutMs: parsed.SEND_API_START_TIMEOUT_MS,
      sweepIntervalMs: parsed.SEND_SWEEP_INTERVAL_MS,
      webhookDisableAfterMs: parsed.SEND_WEBHOOK_DISABLE_AFTER_MS,
      payloadEncryptionKeys: parsed.PAYLOAD_ENCRYPTION_KEYS,
    }),
  });
}
