import { z } from 'zod';

/** The documented least length of every wa-lake secret, token and compose password (docs/configuration.md). */
export const SECRET_MIN_CHARS = 16;

/**
 * Values that only say "put a secret here": the `change-me-…` and `REPLACE_WITH_…` lines of `.env.example` and the
 * usual words of other templates. A stack started with one of them runs with a secret everybody who read the
 * repository knows, so every process refuses it at start (ADR 0028).
 */
const PLACEHOLDER =
  /change[-_ .]?me|replace[-_ ]?(me|with)|placeholder|your[-_ ]?(own[-_ ]?)?(secret|token|password|key)|^(secret|password|changeit|example|xxx+|todo)$/i;

export const PLACEHOLDER_MESSAGE =
  'is a placeholder from .env.example, which everyone who read it knows: generate one, e.g. `openssl rand -hex 32`';

/** @returns true when `value` is a known placeholder rather than a secret. */
export function isPlaceholderSecret(value: string): boolean {
  return PLACEHOLDER.test(value.trim());
}

/**
 * A secret of at least {@link SECRET_MIN_CHARS} characters, not counting spaces around it (a blank value is none),
 * that is no placeholder; the value is never echoed.
 */
export const envSecret = z
  .string({ error: 'is required' })
  .min(SECRET_MIN_CHARS, `must be at least ${SECRET_MIN_CHARS} characters`)
  .refine(
    (value) => value.length < SECRET_MIN_CHARS || value.trim().length >= SECRET_MIN_CHARS,
    `must be at least ${SECRET_MIN_CHARS} characters besides the spaces around it (it is blank or padded)`
  )
  .refine((value) => !isPlaceholderSecret(value), PLACEHOLDER_MESSAGE);

/**
 * The passwords `docker-compose.temporal.yml` reads from `.env`, which compose also passes to every wa-lake service
 * (`env_file`): each service refuses a placeholder or short one at start, so `docker compose up` stops with the
 * key named instead of running the databases on `change-me-…`. Absent outside compose, where nothing is checked.
 */
export const composeSecretsEnvShape = {
  TEMPORAL_POSTGRES_PASSWORD: envSecret.optional().transform(() => undefined),
  LAKE_POSTGRES_PASSWORD: envSecret.optional().transform(() => undefined),
};

/** @returns the password of a `postgres://` URL when it is a placeholder (checked by `envPostgresUrl`). */
export function hasPlaceholderPassword(url: string): boolean {
  try {
    return isPlaceholderSecret(decodeURIComponent(new URL(url).password));
  } catch {
    return false;
  }
}
