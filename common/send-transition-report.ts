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

/**
 * Path of the ingest API's signed endpoint that tells a starting `sendMessage` where its message stands in the
 * lake, so an input is used once (ADR 0026 §6). Body {@link SendStartCheck}; answer {@link SendStartAnswer}.
 */
export const SEND_STARTS_PATH = '/api/internal/send-starts';

/** Body POSTed to {@link SEND_STARTS_PATH}; signed with `X-Event-Id` = `message_id`. */
export interface SendStartCheck {
  message_id: string;
}

/** Answer of {@link SEND_STARTS_PATH}: the message's lake state, or null when the lake has no such message. */
export interface SendStartAnswer {
  state: string | null;
}
