import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { parseConfig } from './config-schema.js';

/** The collector's default `OUTBOX_PATH`: where a command looks for the dev stack's key file when it is unset. */
export const DEFAULT_OUTBOX_PATH = '.data/outbox.sqlite';

/** The file `wa-lake dev` keeps its generated `ERASURE_KEY` in, inside the data folder (beside the outbox). */
export const ERASURE_KEY_FILE = 'erasure-key';

/**
 * `ERASURE_KEY` (ADR 0027): the key of the erasure tombstones' HMAC. `wa-lake forget` writes tombstones with it and
 * the ingest API checks every event against them, so both must hold the same value; it is never stored in the
 * database. At least 32 characters.
 */
export const envErasureKey = z.string().min(32, 'must be at least 32 characters').optional();

/**
 * The erasure key a CLI command uses: `ERASURE_KEY`, else the dev stack's generated file in the data folder that
 * holds `outboxPath` (`wa-lake dev` gives its ingest API the same file); null when neither exists. Never generated
 * here: a key the ingest API does not hold would let erased members back in.
 * @throws ConfigError naming ERASURE_KEY when it is set but shorter than 32 characters.
 */
export function resolveErasureKey(
  env: Readonly<Record<string, string | undefined>>,
  outboxPath: string
): string | null {
  const fromEnv = parseConfig(z.object({ ERASURE_KEY: envErasureKey }), {
    ERASURE_KEY: env['ERASURE_KEY'] === '' ? undefined : env['ERASURE_KEY'],
  }).ERASURE_KEY;
  if (fromEnv !== undefined) return fromEnv;
  const file = join(dirname(outboxPath), ERASURE_KEY_FILE);
  if (!existsSync(file)) return null;
  const stored = readFileSync(file, 'utf8').trim();
  return stored.length >= 32 ? stored : null;
}
