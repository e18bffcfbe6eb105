import { z } from 'zod';
import {
  hasPlaceholderPassword,
  isPlaceholderSecret,
  PLACEHOLDER_MESSAGE,
  SECRET_MIN_CHARS,
} from './placeholder-secrets.js';

/**
 * Thrown by every `load*Config(env)` when the environment is invalid; `issues` lists every problem
 * (house style §5: print them all, exit 1 before opening any connection).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
  }
}

/**
 * Parses `env` with `schema` and freezes the result.
 * @throws ConfigError listing every issue as `KEY: message`.
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return Object.freeze(result.data);
}

/** `'true'` / `'false'` only; anything else is an error (never `Boolean('false') === true`). */
export const envBoolean = (defaultValue: boolean): z.ZodType<boolean, string | undefined> =>
  z
    .enum(['true', 'false'])
    .default(defaultValue ? 'true' : 'false')
    .transform((value) => value === 'true');

/** A whole number within bounds, from a string of plain decimal digits (no sign, blank, point or `0x`). */
export const envInt = (defaultValue: number, min: number, max: number): z.ZodType<number, string | undefined> =>
  z
    .string()
    .regex(/^\d+$/, 'must be an integer written in decimal digits')
    .default(String(defaultValue))
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Log level names pino accepts. */
export const envLogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** An http(s) URL. */
export const envHttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/**
 * `WHATSAPP_WEBHOOK_SECRET`: one secret, or several separated by commas during rotation (the first
 * one signs; any one verifies). Each at least 16 characters. Source: architecture.md §8 (rotation), §11.
 */
export const envWebhookSecrets = z
  .string({ error: 'is required' })
  .transform((value) =>
    value
      .split(',')
      .map((secret) => secret.trim())
      .filter((secret) => secret.length > 0)
  )
  .pipe(
    z
      .array(
        z
          .string()
          .min(SECRET_MIN_CHARS, `each secret must be at least ${SECRET_MIN_CHARS} characters`)
          .refine((secret) => !isPlaceholderSecret(secret), PLACEHOLDER_MESSAGE)
      )
      .min(1, 'needs at least one secret')
  );

/** `DATABASE_URL`: a `postgres://` or `postgresql://` connection string (a typo must not look like an outage). */
export const envPostgresUrl = z
  .string({ error: 'is required' })
  .regex(/^postgres(ql)?:\/\/[^\s]+$/, 'must be a postgres:// or postgresql:// connection string')
  .refine((url) => !hasPlaceholderPassword(url), `its password ${PLACEHOLDER_MESSAGE}`);

/** `TEMPORAL_ADDRESS`: `host:port` of a Temporal frontend, e.g. `127.0.0.1:7233` or `temporal:7233`. */
export const envHostPort = (defaultValue: string): z.ZodType<string, string | undefined> =>
  z
    .string()
    .regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:7233')
    .default(defaultValue);
