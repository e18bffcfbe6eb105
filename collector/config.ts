import { dirname, join } from 'node:path';
import { z } from 'zod';
import { envPayloadEncryptionKeys } from '../common/payload-encryption-keys.js';
import { applyRenamedEnvKeys, type RenamedEnvKey } from '../common/renamed-env-keys.js';
import { envBoolean, envHttpUrl, envInt, envLogLevel, parseConfig } from '../common/config-schema.js';
import { temporalConnectionEnvShape, withTemporalConnection } from '../common/temporal-connection.js';
import { DEFAULT_TASK_QUEUE } from '../workflows/contracts.js';
import { composeSecretsEnvShape } from '../common/placeholder-secrets.js';

const MIB = 1024 * 1024;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * Environment of the collector (architecture.md §5, §6, §10, §11); keys are the environment variable names.
 * Durations are in ms, sizes in bytes, as their names say.
 */
export const collectorEnvSchema = z.object({
  OUTBOX_PATH: z.string().min(1).default('.data/outbox.sqlite'),
  AUTH_DIR: z.string().min(1).default('.data/auth'),
  /** Status file read by `wa-lake status`; default `collector-status.json` next to the outbox. */
  COLLECTOR_STATUS_PATH: z.string().min(1).optional(),
  ...temporalConnectionEnvShape,
  ...composeSecretsEnvShape,
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  OUTBOX_RETENTION_DAYS: envInt(7, 1, 3650),
  OUTBOX_BODY_LIMIT_BYTES: envInt(MIB, 16 * 1024, 2 * MIB - 64 * 1024),
  OUTBOX_INLINE_BINARY_LIMIT_BYTES: envInt(64 * 1024, 0, MIB),
  OUTBOX_POLL_INTERVAL_MS: envInt(1000, 10, 60_000),
  OUTBOX_PRUNE_INTERVAL_MS: envInt(60 * MINUTE_MS, 1000, DAY_MS),
  OUTBOX_MONITOR_INTERVAL_MS: envInt(30_000, 100, 60 * MINUTE_MS),
  OUTBOX_PENDING_ALERT_THRESHOLD: envInt(10_000, 1, 100_000_000),
  OUTBOX_OLDEST_PENDING_ALERT_MS: envInt(15 * MINUTE_MS, 1000, 30 * DAY_MS),
  /** The outbox relay: outbox rows → `deliverEvent` workflow starts (architecture.md §6). */
  OUTBOX_RELAY_BATCH_SIZE: envInt(100, 1, 10_000),
  OUTBOX_RELAY_CONCURRENCY: envInt(8, 1, 256),
  OUTBOX_RELAY_START_TIMEOUT_MS: envInt(10_000, 100, 120_000),
  OUTBOX_RELAY_RETRY_BASE_DELAY_MS: envInt(1000, 1, 60 * MINUTE_MS),
  OUTBOX_RELAY_RETRY_MAX_DELAY_MS: envInt(5 * MINUTE_MS, 1, DAY_MS),
  SESSION_RECONNECT_BASE_DELAY_MS: envInt(2000, 1, 60 * MINUTE_MS),
  SESSION_RECONNECT_MAX_DELAY_MS: envInt(5 * MINUTE_MS, 1, DAY_MS),
  SESSION_RECONNECT_WINDOW_MS: envInt(10 * MINUTE_MS, 1000, DAY_MS),
  SESSION_DOWN_ALERT_MS: envInt(5 * MINUTE_MS, 1000, DAY_MS),
  SESSION_REPLACED_ALERT_COUNT: envInt(2, 1, 100),
  HEARTBEAT_INTERVAL_MS: envInt(MINUTE_MS, 1000, 60 * MINUTE_MS),
  /** Beat sent through the lake while the session is open; a silence over twice it is unobserved (ADR 0016). */
  COVERAGE_HEARTBEAT_INTERVAL_MS: envInt(5 * MINUTE_MS, 1000, 60 * MINUTE_MS),
  /** History backfill (ADR 0016): messages per `fetchMessageHistory` request. */
  BACKFILL_PAGE_SIZE: envInt(50, 1, 500),
  /** At most one history request per this interval, for every group together (ban risk). */
  BACKFILL_REQUEST_INTERVAL_MS: envInt(30_000, 1000, DAY_MS),
  /** A history request without an answer this long is asked again, up to BACKFILL_MAX_ATTEMPTS in all. */
  BACKFILL_ANSWER_TIMEOUT_MS: envInt(2 * MINUTE_MS, 1000, DAY_MS),
  BACKFILL_MAX_ATTEMPTS: envInt(3, 1, 100),
  /** A reconnect after a session gap at least this long backfills every group over the gap; 0 turns it off. */
  BACKFILL_AFTER_GAP_MS: envInt(10 * MINUTE_MS, 0, 30 * DAY_MS),
  /** The healthcheck fails once the live session has had no WhatsApp connection this long (ADR 0018). */
  HEALTHCHECK_WHATSAPP_DOWN_MS: envInt(10 * MINUTE_MS, 0, 30 * DAY_MS),
  ALERT_WEBHOOK_URL: envHttpUrl.optional(),
  ALERT_WINDOW_MS: envInt(15 * MINUTE_MS, 1000, DAY_MS),
  LOG_LEVEL: envLogLevel,
  /** Baileys' own log level; `silent` by default because its records can carry DM JIDs (architecture.md §3). */
  BAILEYS_LOG_LEVEL: envLogLevel.default('silent'),
  /** AES-256-GCM keys of the Temporal payload codec, `id:base64,…`; the first encrypts (architecture.md §14). */
  PAYLOAD_ENCRYPTION_KEYS: envPayloadEncryptionKeys,
  /** Outbound send (architecture.md §12): run the dispatch worker on this account's session task queue. */
  OUTBOUND_SEND_ENABLED: envBoolean(true),
  SEND_ACCOUNT_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, - and _ only')
    .default('default'),
  /** A link in an outbound text gets a preview (title, description) fetched by the collector (ADR 0015). */
  SEND_LINK_PREVIEW: envBoolean(true),
  /** Previews may fetch loopback, private and link-local hosts too (development and tests only, ADR 0015). */
  SEND_LINK_PREVIEW_ALLOW_PRIVATE: envBoolean(false),
});

/**
 * Keys of the outbox relay renamed in this release (they said "send", which now means outbound WhatsApp only):
 * still read for one release, with a warning (ADR 0021).
 */
export const RENAMED_COLLECTOR_ENV_KEYS: Readonly<Record<string, string>> = {
  SEND_BATCH_SIZE: 'OUTBOX_RELAY_BATCH_SIZE',
  SEND_CONCURRENCY: 'OUTBOX_RELAY_CONCURRENCY',
  SEND_START_TIMEOUT_MS: 'OUTBOX_RELAY_START_TIMEOUT_MS',
  SEND_RETRY_BASE_DELAY_MS: 'OUTBOX_RELAY_RETRY_BASE_DELAY_MS',
  SEND_RETRY_MAX_DELAY_MS: 'OUTBOX_RELAY_RETRY_MAX_DELAY_MS',
};

/**
 * Frozen, typed configuration of the collector: the parsed environment, keys = env var names (as the
 * CLI reads them), with `COLLECTOR_STATUS_PATH` resolved (default `collector-status.json` next to
 * the outbox). Durations in ms, sizes in bytes.
 */
export type CollectorConfig = Readonly<
  Omit<z.output<typeof collectorConfigSchema>, 'COLLECTOR_STATUS_PATH'> & {
    COLLECTOR_STATUS_PATH: string;
    /** Old key names found in the environment; `runCollector` logs a warning for each. */
    renamedEnvKeys: readonly RenamedEnvKey[];
  }
>;

/** The schema with the Temporal keys resolved into `temporal` (ADR 0022). */
const collectorConfigSchema = collectorEnvSchema.transform(withTemporalConnection);

/**
 * Parses the collector's environment once (house style §5).
 * @param env - usually `process.env`; tests pass explicit values.
 * @returns a frozen {@link CollectorConfig}.
 * @throws ConfigError listing every invalid key.
 */
export function loadCollectorConfig(env: Readonly<Record<string, string | undefined>>): CollectorConfig {
  const { env: current, renamed } = applyRenamedEnvKeys(env, RENAMED_COLLECTOR_ENV_KEYS);
  const parsed = parseConfig(collectorConfigSchema, current);
  return Object.freeze({
    ...parsed,
    COLLECTOR_STATUS_PATH: parsed.COLLECTOR_STATUS_PATH ?? join(dirname(parsed.OUTBOX_PATH), 'collector-status.json'),
    renamedEnvKeys: Object.freeze(renamed),
  });
}
