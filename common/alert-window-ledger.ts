import type { Alert, AlertSink } from './alert-sink.js';
import type { Logger } from './logger.js';

/** Outcome of {@link AlertWindowLedger.claim}. */
export type AlertWindowClaim =
  /**
   * Nobody sent this kind within the window: the caller sends it now. `squatAlert`: the window was held by a
   * workflow no key holder started, which the ledger replaced (ADR 0026 §7); the caller sends that alert too,
   * past the ledger.
   */
  | { isClaimed: true; squatAlert?: Alert }
  /** Someone (this process before a restart, or another one) sent it; the window ends at `heldUntilMs` (epoch ms). */
  | { isClaimed: false; heldUntilMs: number };

/**
 * Where "an alert of this kind was sent at" lives beyond one process's memory: a
 * Temporal workflow per kind for the workers, a SQLite row for the collector. A claim is atomic: of two
 * processes claiming the same kind at once, one wins.
 */
export interface AlertWindowLedger {
  /**
   * Claims the right to send `kind` for the next `windowMs` ms.
   * @throws when the ledger cannot be reached (the caller decides what to do).
   */
  claim(kind: string, windowMs: number): Promise<AlertWindowClaim>;
}

/** Options of {@link createLedgeredAlertSink}. */
export interface LedgeredAlertSinkOptions {
  /** The sink that actually sends (normally the windowed sink: logs at `error`, posts the webhook). */
  inner: AlertSink;
  ledger: AlertWindowLedger;
  /** Dedup window per kind in ms (`ALERT_WINDOW_MS`). */
  windowMs: number;
  logger: Logger;
  /** Clock in epoch ms; injectable for tests. */
  now?: () => number;
}

/**
 * Wraps an alert sink so each kind is sent at most once per window across restarts and processes
 * that share `ledger` (architecture.md §7/§10 "one alert per window"). A kind the ledger
 * refuses is suppressed without asking the ledger again until its window ends, so 10 000 blocked
 * events cost one ledger call per process and window. When the ledger cannot be reached the alert
 * is sent anyway (a duplicate alert is better than none) and the failure is logged at `warn`.
 *
 * @returns an AlertSink whose `send` resolves true when sent now, false when suppressed.
 */
export function createLedgeredAlertSink(options: LedgeredAlertSinkOptions): AlertSink {
  const now = options.now ?? Date.now;
  const logger = options.logger.child({ component: 'alert-ledger' });
  const heldUntilMs = new Map<string, number>();
  return {
    async send(alert: Alert): Promise<boolean> {
      if ((heldUntilMs.get(alert.kind) ?? 0) > now()) return false;
      try {
        const claim = await options.ledger.claim(alert.kind, options.windowMs);
        if (!claim.isClaimed) {
          heldUntilMs.set(alert.kind, claim.heldUntilMs);
          return false;
        }
        // The fallback path, like an unreachable ledger: the squat alert is not windowed by the ledger it beat.
        if (claim.squatAlert) await options.inner.send(claim.squatAlert);
      } catch (err) {
        logger.warn({ err, kind: alert.kind }, 'alert ledger unreachable; sending without cross-process dedup');
      }
      return options.inner.send(alert);
    },
  };
}
