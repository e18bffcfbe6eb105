import type { Alert, AlertSink } from './alert-sink.js';
import type { Logger } from './logger.js';

/** Options of {@link createWindowedAlertSink}. */
export interface WindowedAlertSinkOptions {
  /** Dedup window per `kind`, in milliseconds (`ALERT_WINDOW_MS`, default 900 000). */
  windowMs: number;
  /** Optional Discord/Slack-compatible incoming webhook (`ALERT_WEBHOOK_URL`). */
  webhookUrl?: string;
  /** Root or child logger; every alert is logged at `error` (an alert needs a human, house style §6). */
  logger: Logger;
  /** Clock in epoch milliseconds; injectable for tests. Defaults to `Date.now`. */
  now?: () => number;
  /** `fetch` implementation; injectable for tests. Defaults to the global `fetch`. */
  fetchImpl?: typeof fetch;
  /** Timeout of one webhook POST in milliseconds (default 10 000). */
  webhookTimeoutMs?: number;
}

/**
 * Builds the JSON body posted to the alert webhook. Discord reads `content`, Slack reads `text`; each
 * ignores the other key, so one body serves both. Source: architecture.md §7 (alerts).
 *
 * @returns `{ content, text }`, both the same one-line summary (at most 1 900 characters, Discord's cap is 2 000).
 */
export function buildAlertWebhookBody(alert: Alert): { content: string; text: string } {
  const details = alert.details
    ? ' ' +
      Object.entries(alert.details)
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(' ')
    : '';
  const line = `[wa-lake ${alert.severity}] ${alert.kind}: ${alert.message}${details}`.slice(0, 1_900);
  return { content: line, text: line };
}

/**
 * Creates an {@link AlertSink} that sends each alert `kind` at most once per `windowMs`: the first alert
 * of a kind is logged at `error` and optionally POSTed to
 * `webhookUrl`; repeats within the window are dropped and counted. Webhook failures are logged at
 * `warn` and never thrown. Source: architecture.md §5/§7 (one alert per window, never once per event or tick).
 *
 * @returns an AlertSink whose `send` resolves true when the alert was sent now, false when suppressed.
 */
export function createWindowedAlertSink(options: WindowedAlertSinkOptions): AlertSink {
  const now = options.now ?? Date.now;
  const fetchImpl = options.fetchImpl ?? fetch;
  const logger = options.logger.child({ component: 'alert-sink' });
  const lastSentAtMs = new Map<string, number>();
  const suppressedCount = new Map<string, number>();

  async function postWebhook(alert: Alert, url: string): Promise<void> {
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(buildAlertWebhookBody(alert)),
        signal: AbortSignal.timeout(options.webhookTimeoutMs ?? 10_000),
      });
      if (!response.ok)
        logger.warn({ kind: alert.kind, status: response.status }, 'alert webhook answered with an error status');
    } catch (err) {
      logger.warn({ kind: alert.kind, err }, 'alert webhook request failed');
    }
  }

  return {
    async send(alert: Alert): Promise<boolean> {
      const at = now();
      const last = lastSentAtMs.get(alert.kind);
      if (last !== undefined && at - last < options.windowMs) {
        suppressedCount.set(alert.kind, (suppressedCount.get(alert.kind) ?? 0) + 1);
        return false;
      }
      const suppressed = suppressedCount.get(alert.kind) ?? 0;
      lastSentAtMs.set(alert.kind, at);
      suppressedCount.set(alert.kind, 0);
      const record = {
        kind: alert.kind,
        severity: alert.severity,
        details: alert.details,
        suppressedSinceLast: suppressed,
        alertMessage: alert.message,
      };
      logger.error(record, 'alert');
      if (options.webhookUrl) await postWebhook(alert, options.webhookUrl);
      return true;
    },
  };
}
