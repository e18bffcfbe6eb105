import { z } from 'zod';

/** One AES-256 key of the payload codec: `id` goes into each payload's metadata, `key` is 32 bytes. */
export interface PayloadEncryptionKey {
  readonly id: string;
  readonly key: Buffer;
}

const AES_256_KEY_BYTES = 32;
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses one `id:base64` entry. @returns the key, or an error sentence naming the entry by position
 * (never echoing the key material into logs).
 */
function parseKeyEntry(entry: string, position: number): PayloadEncryptionKey | string {
  const separator = entry.indexOf(':');
  if (separator <= 0) return `entry ${position} must be id:base64 (e.g. k2026a:<32 bytes in base64>)`;
  const id = entry.slice(0, separator);
  const material = entry.slice(separator + 1);
  if (!KEY_ID_PATTERN.test(id)) return `entry ${position}: key id must be 1-64 of A-Z a-z 0-9 . _ -`;
  if (!BASE64_PATTERN.test(material)) return `entry ${position} (${id}): key is not base64`;
  const key = Buffer.from(material, 'base64');
  if (key.length !== AES_256_KEY_BYTES) {
    return `entry ${position} (${id}): key must be ${AES_256_KEY_BYTES} bytes for AES-256, got ${key.length}`;
  }
  return { id, key };
}

/**
 * `PAYLOAD_ENCRYPTION_KEYS` (architecture.md §14, ADR 0010): comma-separated `id:base64` entries, each a 32-byte
 * AES-256 key. The first encrypts; every one decrypts, so a key can be rotated by putting the new one
 * first and keeping the old ones until the histories they encrypted are past namespace retention.
 * Unset or empty → `undefined` (payloads stay in clear; each process warns at start).
 */
export const envPayloadEncryptionKeys = z
  .string()
  .optional()
  .transform((value, ctx): readonly PayloadEncryptionKey[] | undefined => {
    const entries = (value ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0);
    if (entries.length === 0) return undefined;
    const keys: PayloadEncryptionKey[] = [];
    entries.forEach((entry, index) => {
      const parsed = parseKeyEntry(entry, index + 1);
      if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
      else keys.push(parsed);
    });
    const ids = keys.map((key) => key.id);
    const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
    if (duplicate) ctx.addIssue({ code: 'custom', message: `key id ${duplicate} appears twice` });
    return keys;
  });

/** Zod output of {@link envPayloadEncryptionKeys}: the keys, first = encrypting key, or undefined. */
export type PayloadEncryptionKeys = z.output<typeof envPayloadEncryptionKeys>;

/** A fresh `id:base64` entry for `PAYLOAD_ENCRYPTION_KEYS` (`wa-lake dev`, docs): 32 random bytes. */
export function formatPayloadEncryptionKey(id: string, key: Buffer): string {
  return `${id}:${key.toString('base64')}`;
}
