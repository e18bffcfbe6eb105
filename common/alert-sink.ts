/**
 * One alert for a human (architecture.md §5, §6, §7, §10). `kind` is the deduplication key: the same kind is
 * sent at most once per window, however many events or ticks raise it.
 */
export interface Alert {
  /** Stable dedup key, e.g. `ingest_unauthorized`, `outbox_pending_high`, `session_replaced`. */
  kind: string;
  severity: 'error' | 'warning';
  /** One human sentence; never message text, phone numbers or secrets. */
  message: string;
  details?: Record<string, string | number | boolean | null>;
}

/** Where alerts go. Implementations log at `error` and may POST to `ALERT_WEBHOOK_URL`. */
export interface AlertSink {
  /**
   * Raises an alert unless one of the same `kind` was sent within the window.
   * @returns true when sent now, false when suppressed as a duplicate within the window.
   */
  send(alert: Alert): Promise<boolean>;
}
