import type { Alert } from '../../common/alert-sink.js';

/**
 * The session's alerts (architecture.md §10), one `kind` each so the alert sink sends each at most once per
 * window. Messages never contain JIDs, phone numbers or message text.
 */
export const reconnectAlerts = {
  /** 401 (logged out) or 403 (forbidden): the collector stopped capturing and needs a human. */
  stopped(reason: 'logged_out' | 'forbidden', authDir: string): Alert {
    if (reason === 'logged_out') {
      return {
        kind: 'session_logged_out',
        severity: 'error',
        message:
          `WhatsApp logged this collector out (401); capture has stopped. To re-link: stop the collector, ` +
          `delete the auth directory ${authDir}, then run \`wa-lake collector\` again and scan the new QR code ` +
          '(or use --pair-phone).',
        details: { statusCode: 401 },
      };
    }
    return {
      kind: 'session_forbidden',
      severity: 'error',
      message:
        'WhatsApp refused this account (403); capture has stopped. Check the account on the phone before linking again.',
      details: { statusCode: 403 },
    };
  },
  /** Repeated 440: another client uses the same session and keeps taking it over. */
  replaced(): Alert {
    return {
      kind: 'session_replaced',
      severity: 'error',
      message:
        'Another instance uses this WhatsApp session (repeated 440 connection replaced); stop the other collector.',
      details: { statusCode: 440 },
    };
  },
  /** The session did not come back within `downAlertMs`. */
  down(downAlertMs: number): Alert {
    return {
      kind: 'session_down',
      severity: 'error',
      message: 'The WhatsApp session has not reconnected; events are not being captured. The collector keeps retrying.',
      details: { downAlertMs },
    };
  },
  /** Many disconnects inside the backoff window (flapping). */
  unstable(disconnectsInWindow: number): Alert {
    return {
      kind: 'session_unstable',
      severity: 'warning',
      message: 'The WhatsApp session keeps disconnecting; the collector is backing off.',
      details: { disconnectsInWindow },
    };
  },
};
