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
 * @throws the reason of `abortSignal` as soon as it is aborted (Ctrl-C must not wait for the timeout).
 */
export async function awaitDeliveries(
  client: Client,
  eventIds: readonly string[],
  timeoutMs: number,
  abortSignal?: AbortSignal
): Promise<DeliveryTally> {
  const tally: DeliveryTally = { completed: 0, failed: 0, unfinished: 0 };
  const deadline = Date.now() + timeoutMs;
  for (const eventId of eventIds) {
    abortSignal?.throwIfAborted();
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) {
      tally.unfinished += 1;
      continue;
    }
    const outcome = await awaitOne(client, eventId, remainingMs, abortSignal);
    tally[outcome] += 1;
  }
  return tally;
}

async function awaitOne(
  client: Client,
  eventId: string,
  timeoutMs: number,
  abortSignal: AbortSignal | undefined
): Promise<keyof DeliveryTally> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<'unfinished'>((resolve, reject) => {
    timer = setTimeout(() => resolve('unfinished'), timeoutMs);
    onAbort = () =>
      reject(
        abortSignal?.reason instanceof Error ? abortSignal.reason : new Error('aborted', { cause: abortSignal?.reason })
      );
    abortSignal?.addEventListener('abort', onAbort, { once: true });
  });
  const result = client.workflow
    .getHandle(eventId)
    .result()
    .then(() => 'completed' as const)
    .catch((err: unknown) => (err instanceof WorkflowFailedError ? ('failed' as const) : ('unfinished' as const)));
  try {
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
    if (onAbort) abortSignal?.removeEventListener('abort', onAbort);
  }
}
