import { type Client, WorkflowFailedError } from '@temporalio/client';

/** How the `deliverEvent` workflows of a set of events ended. */
export interface DeliveryTally {
  completed: number;
  failed: number;
  /** Still running (or not found) when the deadline passed. */
  unfinished: number;
}

/**
 * Waits for the `deliverEvent` workflow of each event id (workflowId = event_id, architecture.md §6) to close,
 * up to `timeoutMs` in total, and counts how they ended. Dead-lettered events count as failed.
 */
export async function awaitDeliveries(
  client: Client,
  eventIds: readonly string[],
  timeoutMs: number
): Promise<DeliveryTally> {
  const tally: DeliveryTally = { completed: 0, failed: 0, unfinished: 0 };
  const deadline = Date.now() + timeoutMs;
  for (const eventId of eventIds) {
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) {
      tally.unfinished += 1;
      continue;
    }
    const outcome = await awaitOne(client, eventId, remainingMs);
    tally[outcome] += 1;
  }
  return tally;
}

async function awaitOne(client: Client, eventId: string, timeoutMs: number): Promise<keyof DeliveryTally> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'unfinished'>((resolve) => (timer = setTimeout(() => resolve('unfinished'), timeoutMs)));
  const result = client.workflow
    .getHandle(eventId)
    .result()
    .then(() => 'completed' as const)
    .catch((err: unknown) => (err instanceof WorkflowFailedError ? ('failed' as const) : ('unfinished' as const)));
  try {
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
