import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { decodeStoredInput } from '../common/held-workflow-start.js';
import { DELIVER_EVENT_WORKFLOW_TYPE, type DeliverEventInput } from '../workflows/contracts.js';
import type { OutboxRow } from './outbox-store.js';

/** Why the workflow holding an event's id is not the collector's delivery of that event (ADR 0022). */
export type SquatReason = 'not_decryptable' | 'not_deliver_event' | 'other_event' | 'other_body';

/** What {@link checkHeldWorkflow} found: the genuine delivery, or a squatter and why. */
export type HeldWorkflowCheck = { kind: 'genuine' } | { kind: 'squatted'; reason: SquatReason };

/**
 * Digest of a body for comparison: SHA-256 of its JSON without `captured_at`, which a second capture of the same
 * event (after the outbox row was pruned) sets anew. A body that is no JSON is digested as it is.
 */
export function deliveryBodyDigest(body: string): string {
  let comparable = body;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const rest: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
      delete rest['captured_at'];
      comparable = JSON.stringify(rest);
    }
  } catch {
    // Not JSON: compared byte for byte.
  }
  return createHash('sha256').update(comparable).digest('hex');
}

/**
 * Decides whether the workflow that already holds `row.eventId` (the start was refused as already started) is the
 * collector's delivery of this event (ADR 0022): its start input must decrypt with the client's codec
 * (only a `PAYLOAD_ENCRYPTION_KEYS` holder can write one), be a `deliverEvent` input for this event id, and
 * carry the row's body (by {@link deliveryBodyDigest}). Reads only the first history event of the latest run,
 * which a reset keeps.
 *
 * @throws whatever the history call throws (Temporal unreachable): the caller retries the row.
 */
export async function checkHeldWorkflow(client: Client, row: OutboxRow): Promise<HeldWorkflowCheck> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: row.eventId },
    maximumPageSize: 1,
  });
  const started = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (started?.workflowType?.name !== DELIVER_EVENT_WORKFLOW_TYPE)
    return { kind: 'squatted', reason: 'not_deliver_event' };
  const payload = started.input?.payloads?.[0];
  let input: Partial<DeliverEventInput> | undefined;
  try {
    input = payload
      ? ((await decodeStoredInput(client, payload, row.eventId)) as Partial<DeliverEventInput>)
      : undefined;
  } catch {
    return { kind: 'squatted', reason: 'not_decryptable' };
  }
  if (input?.eventId !== row.eventId) return { kind: 'squatted', reason: 'other_event' };
  if (typeof input.body !== 'string' || deliveryBodyDigest(input.body) !== deliveryBodyDigest(row.body)) {
    return { kind: 'squatted', reason: 'other_body' };
  }
  return { kind: 'genuine' };
}
