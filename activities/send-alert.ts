import type { Alert, AlertSink } from '../common/alert-sink.js';

/** Result of `sendAlert`: whether the sink sent it now or suppressed it as a duplicate within its window. */
export interface SendAlertResult {
  sent: boolean;
}

/**
 * Builds the `sendAlert` activity over an {@link AlertSink} (normally the windowed sink, so 10 000
 * blocked events raise one alert per window; architecture.md §7). Never throws for a failing webhook: the sink
 * logs that.
 *
 * @returns the activity: `(alert) => Promise<{ sent }>`.
 */
export function createSendAlert(deps: { alertSink: AlertSink }): (alert: Alert) => Promise<SendAlertResult> {
  return async function sendAlert(alert: Alert): Promise<SendAlertResult> {
    return { sent: await deps.alertSink.send(alert) };
  };
}
