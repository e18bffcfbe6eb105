import type { MessageFacts } from '../projections/message-facts.js';

/** One stored event of a batch statement whose {@link MessageFacts} have work (ADR 0006). */
export interface MessageProjectionItem {
  eventId: string;
  type: string;
  /** Event time (`occurred_at`, else `captured_at`, else `received_at`). */
  effectiveAt: Date;
  facts: MessageFacts;
}
