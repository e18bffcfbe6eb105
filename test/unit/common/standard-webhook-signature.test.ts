import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  InvalidWebhookSecretError,
  generateWebhookSecret,
  signStandardWebhook,
} from '../../../common/standard-webhook-signature.js';

describe('signStandardWebhook', () => {
  it('produces the signature the standardwebhooks library computes for the same id, timestamp and body', () => {
    const secret = generateWebhookSecret();
    const body = '{"type":"message.sent","data":{"id":"m1"}}';
    const ours = signStandardWebhook(secret, 'send-status-m1-sent', 1_700_000_000, body);
    const theirs = new Webhook(secret).sign('send-status-m1-sent', new Date(1_700_000_000_000), body);
    expect(ours).toBe(theirs);
    expect(ours).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('changes when one byte of the body changes', () => {
    const secret = generateWebhookSecret();
    expect(signStandardWebhook(secret, 'id', 1, '{"a":1}')).not.toBe(signStandardWebhook(secret, 'id', 1, '{"a":2}'));
  });

  it('refuses a secret without the whsec_ prefix or with a short key', () => {
    expect(() => signStandardWebhook('c2VjcmV0', 'id', 1, '')).toThrow(InvalidWebhookSecretError);
    expect(() => signStandardWebhook('whsec_c2VjcmV0', 'id', 1, '')).toThrow(InvalidWebhookSecretError);
  });
});

describe('generateWebhookSecret', () => {
  it('returns whsec_ and 32 bytes of base64, different every time', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});
