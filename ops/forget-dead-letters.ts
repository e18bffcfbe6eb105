import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { jidPatternSource, jidUsers, mentionPatternSource } from '../common/whatsapp-jid.js';
import { DEAD_LETTER_WORKFLOW_ID, ERASED_EXCERPT, redactDeadLettersSignal } from '../workflows/contracts.js';
import { listDeadLetters } from './list-dead-letters.js';

const PAGE_SIZE = 1_000;

/**
 * Erasure in the dead-letter workflow's entries (architecture.md §14, ADR 0010): finds the entries of the
 * member's events (`eventIds`, from the lake and the outbox: replies quoting or mentioning them included) or whose
 * response excerpt names one of `jids` or mentions their digits, and sends {@link redactDeadLettersSignal} with their event ids only (no personal data goes
 * into the history). The full bodies stay in the failed `deliverEvent` inputs until namespace retention.
 *
 * @returns how many entries were redacted (0 when the workflow does not exist).
 * @throws client errors other than "workflow not found" (e.g. Temporal unreachable).
 */
export async function forgetInDeadLetters(
  client: Client,
  jids: readonly string[],
  eventIds: ReadonlySet<string>
): Promise<number> {
  const users = jidUsers(jids);
  // A JID of the member, or an `@<digits>` mention of them in a quoted text (ADR 0027).
  const pattern = users.length > 0 ? new RegExp(`${jidPatternSource(users)}|${mentionPatternSource(users)}`) : null;
  const matching: string[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const page = await listDeadLetters(client, { pageSize: PAGE_SIZE, offset, includeResolved: true });
    for (const entry of page.entries) {
      const isNamed = pattern?.test(entry.responseExcerpt) ?? false;
      if (entry.responseExcerpt !== ERASED_EXCERPT && (eventIds.has(entry.eventId) || isNamed))
        matching.push(entry.eventId);
    }
    offset = page.nextOffset;
  }
  if (matching.length === 0) return 0;
  try {
    await client.workflow.getHandle(DEAD_LETTER_WORKFLOW_ID).signal(redactDeadLettersSignal, { eventIds: matching });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 0;
    throw err;
  }
  return matching.length;
}
