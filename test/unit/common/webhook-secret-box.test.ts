import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  WebhookSecretUnreadableError,
  openWebhookSecret,
  sealWebhookSecret,
} from '../../../common/webhook-secret-box.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const oldKey = { id: 'k-old', key: randomBytes(32) };
const newKey = { id: 'k-new', key: randomBytes(32) };

describe('sealWebhookSecret / openWebhookSecret', () => {
  it('stores ciphertext under the first key, never the secret itself, and opens it again', () => {
    const sealed = sealWebhookSecret(SECRET, [newKey, oldKey]);
    expect(sealed.startsWith('aes256gcm:k-new:')).toBe(true);
    expect(sealed).not.toContain(SECRET.slice(6));
    expect(openWebhookSecret(sealed, [newKey, oldKey])).toBe(SECRET);
  });

  it('opens a value sealed under an older key after rotation (new key first)', () => {
    const sealed = sealWebhookSecret(SECRET, [oldKey]);
    expect(openWebhookSecret(sealed, [newKey, oldKey])).toBe(SECRET);
  });

  it('keeps the secret in clear, marked as such, when no key is configured', () => {
    expect(sealWebhookSecret(SECRET, undefined)).toBe(`clear:${SECRET}`);
    expect(openWebhookSecret(`clear:${SECRET}`, [newKey])).toBe(SECRET);
  });

  it('refuses a tampered value, an unknown key id and an unknown form', () => {
    const sealed = sealWebhookSecret(SECRET, [newKey]);
    const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => openWebhookSecret(tampered, [newKey])).toThrow(WebhookSecretUnreadableError);
    expect(() => openWebhookSecret(sealed, [oldKey])).toThrow(WebhookSecretUnreadableError);
    expect(() => openWebhookSecret(SECRET, [newKey])).toThrow(WebhookSecretUnreadableError);
  });
});
