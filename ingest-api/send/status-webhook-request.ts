import { stringifyJsonExactly } from '../../common/exact-json-text.js';
import type { PreparedStatusWebhook, StatusWebhookPayload } from '../../common/send-status-webhook.js';
import { STANDARD_WEBHOOK_HEADERS, signStandardWebhook } from '../../common/standard-webhook-signature.js';
import type { SendStatusDeliveryInput } from '../../workflows/send-contracts.js';
import { sendStatusWebhookId } from '../../workflows/send-contracts.js';

/**
 * Builds the signed Standard Webhooks request for one status change (ADR 0011):
 * `webhook-id` = `send-status-<message_id>-<state>` (constant across retries: the receiver's
 * idempotency key), `webhook-timestamp` = `nowMs` in unix seconds (fresh per attempt, so a retry hours
 * later still passes the receivers' 5-minute tolerance), `webhook-signature` = `v1,<base64>`.
 * The body is deterministic for a given status change, so every attempt carries the same bytes.
 *
 * @param secret - the key's `whsec_<base64>` secret, already opened.
 * @param nowMs - epoch milliseconds of this attempt.
 * @throws InvalidWebhookSecretError when the stored secret is malformed.
 */
export function buildStatusWebhookRequest(
  target: { url: string; secret: string; metadata: Record<string, unknown> | null },
  change: SendStatusDeliveryInput,
  nowMs: number
): Extract<PreparedStatusWebhook, { url: string }> {
  const payload: StatusWebhookPayload = {
    type: `message.${change.state}`,
    timestamp: change.at,
    data: {
      id: change.messageId,
      status: change.state,
      sequence: change.sequence,
      at: change.at,
      reason_code: change.reasonCode,
      metadata: target.metadata,
    },
  };
  const body = stringifyJsonExactly(payload);
  const webhookId = sendStatusWebhookId(change.messageId, change.state);
  const timestampSeconds = Math.floor(nowMs / 1000);
  return {
    url: target.url,
    body,
    headers: {
      'content-type': 'application/json',
      [STANDARD_WEBHOOK_HEADERS.id]: webhookId,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestampSeconds),
      [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(target.secret, webhookId, timestampSeconds, body),
    },
  };
}
