import { describe, expect, it } from 'vitest';
import { planWebhookChange } from '../../../../cli/commands/api-key-webhook.js';

const WITH = { webhookUrl: 'https://crm.example/hooks', hasWebhookSecret: true };
const WITHOUT = { webhookUrl: null, hasWebhookSecret: false };

describe('wa-lake api-keys webhook: what it changes (ADR 0017)', () => {
  it('rotates the secret of a key with a webhook, keeping its URL', () => {
    expect(planWebhookChange(WITH, { rotateSecret: true })).toEqual({ kind: 'change', newSecret: true });
  });

  it('moves the URL and keeps the secret, unless asked for a new one', () => {
    expect(planWebhookChange(WITH, { url: 'https://new.example/h' })).toEqual({
      kind: 'change',
      webhookUrl: 'https://new.example/h',
      newSecret: false,
    });
    expect(planWebhookChange(WITH, { url: 'https://new.example/h', rotateSecret: true })).toMatchObject({
      newSecret: true,
    });
  });

  it('gives a key without webhook a URL and a secret to sign with', () => {
    expect(planWebhookChange(WITHOUT, { url: 'https://new.example/h' })).toEqual({
      kind: 'change',
      webhookUrl: 'https://new.example/h',
      newSecret: true,
    });
  });

  it('removes a webhook, and shows it when nothing is asked', () => {
    expect(planWebhookChange(WITH, { remove: true })).toEqual({ kind: 'change', webhookUrl: null, newSecret: false });
    expect(planWebhookChange(WITH, {})).toEqual({ kind: 'show' });
  });

  it('refuses what cannot be meant: a secret without URL, removing nothing, remove with a change', () => {
    expect(planWebhookChange(WITHOUT, { rotateSecret: true })).toMatchObject({ kind: 'refuse' });
    expect(planWebhookChange(WITHOUT, { remove: true })).toEqual({
      kind: 'refuse',
      reason: 'the key has no webhook URL to remove',
    });
    expect(planWebhookChange(WITH, { remove: true, rotateSecret: true })).toMatchObject({ kind: 'refuse' });
  });
});
