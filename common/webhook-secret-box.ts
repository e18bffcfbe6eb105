import { randomBytes } from 'node:crypto';
import { AES_GCM_IV_BYTES, openAesGcm, sealAesGcm } from './aes-gcm-box.js';
import type { PayloadEncryptionKeys } from './payload-encryption-keys.js';

const SEALED_PREFIX = 'aes256gcm:';
const CLEAR_PREFIX = 'clear:';
/** Binds a ciphertext to its column, so a sealed value moved elsewhere does not open. */
const ASSOCIATED_DATA = Buffer.from('wa-lake send_api_keys.webhook_secret', 'utf8');

/** Thrown when a stored webhook secret cannot be opened (unknown key id, tampered ciphertext, unknown form). */
export class WebhookSecretUnreadableError extends Error {
  override readonly name = 'WebhookSecretUnreadableError';
}

/**
 * Seals a status-webhook signing secret for `send_api_keys.webhook_secret` (ADR 0011). With
 * `PAYLOAD_ENCRYPTION_KEYS` set: `aes256gcm:<keyId>:<base64(iv | tag | ciphertext)>` under the first key;
 * unset: `clear:<secret>`, the same opt-in stance as the payload codec (architecture.md §14).
 */
export function sealWebhookSecret(secret: string, keys: PayloadEncryptionKeys): string {
  const key = keys?.[0];
  if (!key) return `${CLEAR_PREFIX}${secret}`;
  const sealed = sealAesGcm(key.key, randomBytes(AES_GCM_IV_BYTES), secret, ASSOCIATED_DATA);
  return `${SEALED_PREFIX}${key.id}:${sealed.toString('base64')}`;
}

/**
 * Opens a value written by {@link sealWebhookSecret}; any configured key may open (rotation: new key first).
 * @throws WebhookSecretUnreadableError when the key id is not configured, the value was altered or has an unknown form.
 */
export function openWebhookSecret(stored: string, keys: PayloadEncryptionKeys): string {
  if (stored.startsWith(CLEAR_PREFIX)) return stored.slice(CLEAR_PREFIX.length);
  if (!stored.startsWith(SEALED_PREFIX)) throw new WebhookSecretUnreadableError('unknown webhook secret form');
  const rest = stored.slice(SEALED_PREFIX.length);
  const separator = rest.indexOf(':');
  const keyId = rest.slice(0, separator);
  const key = keys?.find((candidate) => candidate.id === keyId);
  if (separator <= 0 || !key) throw new WebhookSecretUnreadableError(`key ${keyId} is not in PAYLOAD_ENCRYPTION_KEYS`);
  const packed = Buffer.from(rest.slice(separator + 1), 'base64');
  try {
    return openAesGcm(key.key, packed, ASSOCIATED_DATA);
  } catch (err) {
    throw new WebhookSecretUnreadableError('webhook secret does not decrypt', { cause: err });
  }
}
