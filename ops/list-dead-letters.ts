import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DEAD_LETTER_WORKFLOW_ID, listDeadLettersQuery, type DeadLetterPage } from '../workflows/contracts.js';

/** Options of {@link listDeadLetters}. */
export interface ListDeadLettersOptions {
  /** Entries per page, 1–1 000. */
  pageSize: number;
  /** Offset of the page (from `nextOffset` of the previous page); default 0. */
  offset?: number;
  /** Include resolved entries (default false: open ones only). */
  includeResolved?: boolean;
}

const EMPTY_PAGE: DeadLetterPage = { entries: [], total: 0, unresolvedCount: 0, nextOffset: null };

/**
 * One page of dead-lettered events, oldest first, read by query from the dead-letter workflow
 * (`wa-lake dlq list`; architecture.md §7, ADR 0002). An empty page when nothing was ever dead-lettered.
 *
 * @throws client errors other than "workflow not found" (e.g. Temporal unreachable).
 */
export async function listDeadLetters(client: Client, options: ListDeadLettersOptions): Promise<DeadLetterPage> {
  try {
    return await client.workflow.getHandle(DEAD_LETTER_WORKFLOW_ID).query(listDeadLettersQuery, {
      offset: options.offset ?? 0,
      limit: options.pageSize,
      includeResolved: options.includeResolved ?? false,
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return EMPTY_PAGE;
    throw err;
  }
}

/**
 * Number of open (unresolved) dead-letter entries, for `wa-lake status`.
 * @throws client errors other than "workflow not found".
 */
export async function countDeadLetters(client: Client): Promise<number> {
  return (await listDeadLetters(client, { pageSize: 1 })).unresolvedCount;
}
