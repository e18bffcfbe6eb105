import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { signalResolveDeadLetters } from '../activities/resolve-dead-letters.js';
import type { DeadLetterPage } from '../workflows/contracts.js';
import { ResetPointNotFoundError } from './errors.js';
import { listDeadLetters } from './list-dead-letters.js';

/** Which dead-lettered events to replay. */
export type ReplaySelection = { eventIds: string[] } | { all: true };

/** Outcome per event of {@link replayDeadLetters}. */
export interface ReplayReport {
  replayed: Array<{ eventId: string; newRunId: string }>;
  /** Not reset because the workflow is still running or already completed. */
  skipped: Array<{ eventId: string; status: string }>;
  failed: Array<{ eventId: string; error: string }>;
}

// temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED; a wire constant of the Temporal API,
// spelled out to avoid a direct dependency on @temporalio/proto.
const EVENT_TYPE_WORKFLOW_TASK_COMPLETED = 7;

async function resetToFirstWorkflowTask(client: Client, eventId: string, reason: string): Promise<string> {
  const handle = client.workflow.getHandle(eventId);
  const history = await handle.fetchHistory();
  const firstCompleted = history.events?.find(
    (event) => Number(event.eventType) === EVENT_TYPE_WORKFLOW_TASK_COMPLETED
  );
  if (!firstCompleted?.eventId) throw new ResetPointNotFoundError(eventId);
  const response = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId: eventId },
    reason,
    workflowTaskFinishEventId: firstCompleted.eventId,
    requestId: randomUUID(),
  });
  return response.runId ?? '';
}

/**
 * The event ids a replay works on: the given ones, or with `{ all: true }` every open entry of the
 * dead-letter workflow, page by page (`wa-lake dlq replay --all`).
 *
 * @throws client errors while listing the dead-letter entries.
 */
export async function selectDeadLettersToReplay(client: Client, selection: ReplaySelection): Promise<string[]> {
  if ('eventIds' in selection) return selection.eventIds;
  const ids: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page: DeadLetterPage = await listDeadLetters(client, { pageSize: 1_000, offset });
    ids.push(...page.entries.map((entry) => entry.eventId));
    offset = page.nextOffset;
  }
  return ids;
}

/**
 * Replays dead-lettered events by resetting each failed `deliverEvent` to its first workflow task
 * (the same as `temporal workflow reset --workflow-id <event_id> --type FirstWorkflowTask`), so the
 * workflowId stays the event_id and the exact body is re-sent; then marks the replayed entries resolved.
 * Running or completed workflows are skipped. Source: architecture.md §7, ADR 0002 (`wa-lake dlq replay`).
 *
 * @param reason - recorded on the reset and as the entries' resolution.
 * @returns per-event report; one failing event does not stop the others.
 * @throws client errors while listing the dead-letter entries (`{ all: true }`).
 */
export async function replayDeadLetters(
  client: Client,
  selection: ReplaySelection,
  reason: string
): Promise<ReplayReport> {
  const report: ReplayReport = { replayed: [], skipped: [], failed: [] };
  for (const eventId of await selectDeadLettersToReplay(client, selection)) {
    try {
      const { status } = await client.workflow.getHandle(eventId).describe();
      if (status.name === 'RUNNING' || status.name === 'COMPLETED') {
        report.skipped.push({ eventId, status: status.name });
        continue;
      }
      report.replayed.push({ eventId, newRunId: await resetToFirstWorkflowTask(client, eventId, reason) });
    } catch (err) {
      report.failed.push({ eventId, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (report.replayed.length > 0) {
    await signalResolveDeadLetters(client, {
      eventIds: report.replayed.map((entry) => entry.eventId),
      reason: `replayed: ${reason}`,
    });
  }
  return report;
}
