import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  DEAD_LETTER_WORKFLOW_ID,
  resolveDeadLettersSignal,
  type ResolveDeadLettersRequest,
} from '../workflows/contracts.js';
import type { DeadLetterDeps } from './record-dead-letter.js';

/**
 * Signals the dead-letter workflow to mark `request.eventIds` resolved. Shared by the activity below and
 * `ops/replay-dead-letters.ts`.
 *
 * @returns true when signalled, false when no dead-letter workflow is running (nothing to resolve).
 * @throws any client error other than {@link WorkflowNotFoundError}.
 */
export async function signalResolveDeadLetters(client: Client, request: ResolveDeadLettersRequest): Promise<boolean> {
  try {
    await client.workflow.getHandle(DEAD_LETTER_WORKFLOW_ID).signal(resolveDeadLettersSignal, request);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Builds the `resolveDeadLetters` activity, run by `deliverEvent` when an event is delivered by a run
 * that was reset (the operator's `temporal workflow reset` or `wa-lake dlq replay`), so the entry is
 * closed without a second operator step. Source: architecture.md §7, ADR 0002.
 *
 * @throws whatever the client throws, except "not found" (retried by the activity retry policy).
 */
export function createResolveDeadLetters(deps: DeadLetterDeps): (request: ResolveDeadLettersRequest) => Promise<void> {
  return async function resolveDeadLetters(request: ResolveDeadLettersRequest): Promise<void> {
    await signalResolveDeadLetters(deps.client, request);
  };
}
