import type { OutboxStore } from '../../collector/index.js';

/**
 * Polls the outbox until no row is `pending` (every kept event handed to Temporal) or `timeoutMs`
 * passes. @returns the number of rows still pending (0 when drained).
 */
export async function waitForOutboxDrain(outbox: OutboxStore, timeoutMs: number, pollMs = 200): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = outbox.countByState().pending;
    if (pending === 0 || Date.now() >= deadline) return pending;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
