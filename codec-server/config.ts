import { z } from 'zod';
import { envInt, envLogLevel, parseConfig } from '../common/config-schema.js';
import { envPayloadEncryptionKeys } from '../common/payload-encryption-keys.js';
import { envSecret } from '../common/placeholder-secrets.js';

/**
 * Environment of `wa-lake codec-server` (architecture.md §14, ADR 0010); keys are the env var names.
 * `CODEC_SERVER_CORS_ORIGINS` lists the Temporal Web UI origins allowed to call it from a browser.
 */
export const codecServerEnvSchema = z.object({
  CODEC_SERVER_HOST: z.string().min(1).default('127.0.0.1'),
  CODEC_SERVER_PORT: envInt(8234, 0, 65_535),
  /** Bearer token every request must carry (header, or the Web UI's path prefix); ≥ 16 characters. */
  CODEC_SERVER_TOKEN: envSecret,
  CODEC_SERVER_CORS_ORIGINS: z
    .string()
    .default('http://127.0.0.1:8233,http://localhost:8233')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim().replace(/\/+$/, ''))
        .filter((origin) => origin.length > 0)
    )
    .pipe(z.array(z.url({ protocol: /^https?$/, error: 'each origin must be an http(s) URL' }))),
  PAYLOAD_ENCRYPTION_KEYS: envPayloadEncryptionKeys.refine((keys) => keys !== undefined && keys.length > 0, {
    message: 'is required: the codec server decrypts with these keys',
  }),
  LOG_LEVEL: envLogLevel,
});

/** Frozen, typed configuration of the codec server. */
export type CodecServerConfig = Readonly<z.output<typeof codecServerEnvSchema>>;

/**
 * Parses the codec server's environment once (house style §5).
 * @throws ConfigError listing every invalid key (key material is never echoed).
 */
export function loadCodecServerConfig(env: Readonly<Record<string, string | undefined>>): CodecServerConfig {
  return parseConfig(codecServerEnvSchema, env);
}
