/** Path of the ingest API's signed endpoint that records send state transitions (architecture.md §12, ADR 0009). */
export const SEND_TRANSITIONS_PATH = '/api/internal/send-transitions';

/** Body POSTed to {@link SEND_TRANSITIONS_PATH}; signed like a lake delivery with `X-Event-Id` = `message_id`. */
export interface SendTransitionReport {
  message_id: string;
  state: string;
  /** ISO-8601 workflow time at which the state was reached. */
  at: string;
  reason_code: string | null;
}
