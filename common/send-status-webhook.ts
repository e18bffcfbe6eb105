/**
 * Contract between the `postSendStatusWebhook` activity (worker) and the ingest API, which holds the API
 * keys' webhook URLs and sealed secrets (ADR 0011). The worker has no database: per
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

/**
 * Answer of {@link SEND_STATUS_WEBHOOKS_PATH}: the exact request to send now, or `url: null` (no webhook, or a
 * disabled one). `is_failing`: the endpoint failed since its last success, so the worker reports a success too.
 */
export type PreparedStatusWebhook =
  { url: string; headers: Record<string, string>; body: string; is_failing?: boolean } | { url: null };

/** Default of `SEND_WEBHOOK_DISABLE_AFTER_MS`: an endpoint failing 5 days without a success is disabled. */
export const STATUS_WEBHOOK_DISABLE_AFTER_MS = 5 * 86_400_000;

/**
 * Signed internal endpoint the worker reports a status-webhook attempt's outcome to (ADR 0014 decision 8): every
 * failure, and a success while the endpoint was failing. `X-Event-Id` = `message_id`.
 */
export const SEND_STATUS_WEBHOOK_OUTCOMES_PATH = '/api/internal/send-status-webhook-outcomes';

/** Body POSTed to {@link SEND_STATUS_WEBHOOK_OUTCOMES_PATH}. */
export interface StatusWebhookOutcomeReport {
  message_id: string;
  delivered: boolean;
  /** HTTP status of the answer; null for a network error or timeout. */
  status: number | null;
}

/** Answer of {@link SEND_STATUS_WEBHOOK_OUTCOMES_PATH}; `disabled_now` is true for the one report that disabled it. */
export interface StatusWebhookOutcomeAnswer {
  disabled: boolean;
  disabled_now: boolean;
  key_id: string | null;
  reason: string | null;
}

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
