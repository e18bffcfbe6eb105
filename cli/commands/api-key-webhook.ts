/** What `wa-lake api-keys webhook` was asked to do (ADR 0017). */
export interface WebhookChangeOptions {
  /** The new URL, already checked against the webhook policy. */
  url?: string;
  rotateSecret?: boolean;
  remove?: boolean;
}

/** The key as the command finds it. */
export interface KeyWebhook {
  webhookUrl: string | null;
  hasWebhookSecret: boolean;
}

/** What to change, or why nothing is changed. */
export type WebhookChangePlan =
  | { kind: 'refuse'; reason: string }
  | { kind: 'show' }
  | { kind: 'change'; webhookUrl?: string | null; newSecret: boolean };

/**
 * Decides what `wa-lake api-keys webhook` changes on a key (ADR 0017): a new URL (a key that has no signing secret
 * yet gets one: status webhooks are signed), a new secret for the same URL, or no webhook any more. Nothing asked:
 * the current webhook is shown.
 */
export function planWebhookChange(key: KeyWebhook, options: WebhookChangeOptions): WebhookChangePlan {
  const { url, rotateSecret = false, remove = false } = options;
  if (remove && (url !== undefined || rotateSecret)) {
    return { kind: 'refuse', reason: '--remove cannot be combined with --url or --rotate-secret' };
  }
  if (remove) {
    return key.webhookUrl === null
      ? { kind: 'refuse', reason: 'the key has no webhook URL to remove' }
      : { kind: 'change', webhookUrl: null, newSecret: false };
  }
  if (url === undefined && !rotateSecret) return { kind: 'show' };
  if (url === undefined && key.webhookUrl === null) {
    return { kind: 'refuse', reason: 'the key has no webhook URL; give one with --url (a secret comes with it)' };
  }
  return {
    kind: 'change',
    ...(url === undefined ? {} : { webhookUrl: url }),
    newSecret: rotateSecret || !key.hasWebhookSecret,
  };
}
