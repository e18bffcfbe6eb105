import { setTimeout as sleep } from 'node:timers/promises';
import type { OutboxStore } from '../../collector/index.js';

/**
 * Polls the outbox until no row is `pending` (every kept event handed to Temporal) or `timeoutMs`
 * passes. @returns the number of rows still pending (0 when drained).
 * @throws the reason of `abortSignal` as soon as it is aborted (Ctrl-C must not wait for the timeout).
 */
export async function waitForOutboxDrain(
  outbox: OutboxStore,
  timeoutMs: number,
  pollMs = 200,
  abortSignal?: AbortSignal
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    abortSignal?.throwIfAborted();
    const pending = outbox.countByState().pending;
    if (pending === 0 || Date.now() >= deadline) return pending;
    await sleep(pollMs, undefined, { signal: abortSignal }).catch(() => abortSignal?.throwIfAborted());
  }
}
