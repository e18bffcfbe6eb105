import { createHash, randomBytes } from 'node:crypto';

/** A freshly generated API key: `key` is shown once, only `hash` and `prefix` are stored. */
export interface GeneratedApiKey {
  key: string;
  /** Lower-case hex SHA-256 of `key` (64 characters). */
  hash: string;
  /** First characters of the key, to recognise it in `wa-lake api-keys list`. */
  prefix: string;
}

/** Hashes a presented key for lookup (architecture.md §12: keys stored hashed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Generates `wlk_` + 43 base64url characters (256 random bits). */
export function generateApiKey(): GeneratedApiKey {
  const key = `wlk_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) };
}
