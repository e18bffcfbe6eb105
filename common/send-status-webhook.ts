/**
 * Contract between the `postSendStatusWebhook` activity (worker) and the ingest API, which holds the API
 * keys' webhook URLs and sealed secrets (issue #10 item 8, ADR 0011). The worker has no database: per
 * attempt it asks the ingest API to build and sign the request, then POSTs it itself.
 */

/** Signed internal endpoint that prepares one status webhook request (same HMAC as lake deliveries). */
export const SEND_STATUS_WEBHOOKS_PATH = '/api/internal/send-status-webhooks';

/** Body POSTed to {@link SEND_STATUS_WEBHOOKS_PATH}; `X-Event-Id` = `message_id`. */
export interface PrepareStatusWebhookRequest {
  message_id: string;
  state: string;
  /** ISO-8601 time the state was reached. */
  at: string;
  reason_code: string | null;
  sequence: number;
}

/** Answer of {@link SEND_STATUS_WEBHOOKS_PATH}: the exact request to send now, or `url: null` (no webhook). */
export type PreparedStatusWebhook = { url: string; headers: Record<string, string>; body: string } | { url: null };

/**
 * Body the caller receives (Standard Webhooks payload shape `{type, timestamp, data}`): `data.sequence`
 * and `data.at` let a receiver order status changes that arrive out of order.
 */
export interface StatusWebhookPayload {
  type: `message.${string}`;
  /** ISO-8601 time the state was reached. */
  timestamp: string;
  data: {
    id: string;
    status: string;
    sequence: number;
    at: string;
    reason_code: string | null;
    /** The `metadata` the caller sent with the request, unchanged (null when none). */
    metadata: Record<string, unknown> | null;
  };
}
