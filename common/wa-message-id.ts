import { createHash } from 'node:crypto';

/**
 * Derives the WhatsApp message id of an outbound message from its `message_id` (architecture.md §12): the same
 * input always gives the same id, so a retry after an ambiguous outcome (a send that timed out while
 * in flight, a collector killed after the socket accepted it) re-sends the *same* WhatsApp message,
 * which recipients' devices show once. Format matches Baileys' `generateMessageIDV2`: `3EB0` + 18
 * upper-case hex characters (22 characters).
 *
 * @param messageId - the outbound message's UUID.
 */
export function deriveWaMessageId(messageId: string): string {
  const digest = createHash('sha256').update(`wa-lake-send|${messageId.toLowerCase()}`).digest('hex');
  return `3EB0${digest.toUpperCase().slice(0, 18)}`;
}
