import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of a Standard Webhooks signing secret (https://www.standardwebhooks.com, "Signature scheme"). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Header names of the Standard Webhooks spec (lower case, as Node sends and receives them). */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** Random bytes of a generated secret; the spec asks for 24–64 (ADR 0011). */
const SECRET_BYTES = 32;

/** Thrown when a secret is not `whsec_<base64>` of 24–64 bytes. */
export class InvalidWebhookSecretError extends Error {
  override readonly name = 'InvalidWebhookSecretError';
}

/** Generates a per-key signing secret: `whsec_` + base64 of 32 random bytes (shown once by `wa-lake api-keys create`). */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The HMAC key inside a `whsec_<base64>` secret.
 * @throws InvalidWebhookSecretError when the prefix is missing or the key is not 24–64 bytes of base64.
 */
export function decodeWebhookSecret(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new InvalidWebhookSecretError('secret must start with whsec_');
  const material = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  const key = Buffer.from(material, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(material) || key.length < 24 || key.length > 64) {
    throw new InvalidWebhookSecretError('secret must be whsec_ + base64 of 24–64 bytes');
  }
  return key;
}

/**
 * Computes the `webhook-signature` value of the Standard Webhooks spec: `v1,` + base64 HMAC-SHA256 over
 * `${webhookId}.${timestampSeconds}.${body}` keyed with the base64-decoded secret. Pure.
 * Source: https://www.standardwebhooks.com ("Signature scheme"), ADR 0011.
 *
 * @param secret - `whsec_<base64>` of the API key.
 * @param webhookId - the `webhook-id` header (stable across retries of one status change).
 * @param timestampSeconds - the `webhook-timestamp` header, unix time in seconds (per attempt).
 * @param body - the exact bytes sent.
 * @throws InvalidWebhookSecretError on a malformed secret.
 */
export function signStandardWebhook(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', decodeWebhookSecret(secret))
    .update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${digest}`;
}
