import { z } from 'zod';
import { envHttpUrl, envInt, envLogLevel, envWebhookSecrets, parseConfig } from '../common/config-schema.js';
import { temporalConnectionEnvShape, withTemporalConnection } from '../common/temporal-connection.js';
import { envPayloadEncryptionKeys } from '../common/payload-encryption-keys.js';
import { webhookUrlPolicyEnvShape } from '../common/webhook-url-policy.js';
import { DEFAULT_TASK_QUEUE, POST_EVENT_START_TO_CLOSE_TIMEOUT_MS } from '../workflows/contracts.js';
import { composeSecretsEnvShape } from '../common/placeholder-secrets.js';

const MINUTE_MS = 60_000;

/**
 * Environment of the worker (architecture.md §7, §11); keys are the environment variable names. Durations in ms.
 * `HTTP_TIMEOUT_MS` stays below the activity's start-to-close timeout; `WORKER_SHUTDOWN_GRACE_TIME_MS`
 * must exceed `HTTP_TIMEOUT_MS` so a deploy never kills a POST in flight.
 */
export const workerEnvSchema = z
  .object({
    ...temporalConnectionEnvShape,
    ...composeSecretsEnvShape,
    TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
    WEBHOOK_URL: envHttpUrl,
    /** One or more comma-separated secrets; the first one signs. */
    WHATSAPP_WEBHOOK_SECRET: envWebhookSecrets,
    HTTP_TIMEOUT_MS: envInt(15_000, 100, POST_EVENT_START_TO_CLOSE_TIMEOUT_MS - 5_000),
    ALERT_WEBHOOK_URL: envHttpUrl.optional(),
    ALERT_WINDOW_MS: envInt(15 * MINUTE_MS, 1_000, 24 * 60 * MINUTE_MS),
    WORKER_SHUTDOWN_GRACE_TIME_MS: envInt(30_000, 1_000, 10 * MINUTE_MS),
    LOG_LEVEL: envLogLevel,
    /** Status file for the container healthcheck (`bin/healthcheck.js worker`); none written when unset. */
    WORKER_STATUS_PATH: z.string().min(1).optional(),
    /** AES-256-GCM keys of the Temporal payload codec, `id:base64,…`; the first encrypts (architecture.md §14). */
    PAYLOAD_ENCRYPTION_KEYS: envPayloadEncryptionKeys,
    // Outbound send (architecture.md §12): per-account token bucket and marketing-only jitter.
    SEND_RATE_PER_MINUTE: envInt(20, 1, 6_000),
    SEND_RATE_BURST: envInt(5, 1, 1_000),
    SEND_MARKETING_JITTER_MAX_MS: envInt(0, 0, 10 * MINUTE_MS),
    // Per-recipient pacing in the gate (ADR 0015): WhatsApp allows one chat about one message per 6 s.
    SEND_RECIPIENT_INTERVAL_MS: envInt(6_000, 0, 10 * MINUTE_MS),
    // Where callers' status webhooks may go (ADR 0014): https to public addresses unless these say otherwise.
    ...webhookUrlPolicyEnvShape,
  })
  .superRefine((config, ctx) => {
    if (config.WORKER_SHUTDOWN_GRACE_TIME_MS <= config.HTTP_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_SHUTDOWN_GRACE_TIME_MS'],
        message: `must exceed HTTP_TIMEOUT_MS (${config.HTTP_TIMEOUT_MS}) so an in-flight POST can finish on shutdown`,
      });
    }
  });

/** The schema with the Temporal keys resolved into `temporal` (ADR 0022). */
const workerConfigSchema = workerEnvSchema.transform(withTemporalConnection);

/** Frozen, typed worker configuration; keys = env var names, durations in ms. */
export type WorkerConfig = Readonly<z.output<typeof workerConfigSchema>>;

/**
 * Parses the worker's environment once (house style §5).
 * @param env - usually `process.env`; tests pass explicit values.
 * @returns a frozen {@link WorkerConfig}.
 * @throws ConfigError listing every invalid key.
 */
export function loadWorkerConfig(env: Readonly<Record<string, string | undefined>>): WorkerConfig {
  return parseConfig(workerConfigSchema, env);
}
