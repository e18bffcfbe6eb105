import { vi } from 'vitest';

/** The default patience of {@link waitUntil}: most of the suite's 120 s test budget, so load stretches, not breaks. */
export const WAIT_UNTIL_TIMEOUT_MS = 100_000;

/**
 * Resolves once `check` answers true, asking again every `intervalMs` (vitest's `vi.waitFor` underneath): the one
 * polling helper of the integration tests. The budget is a ceiling for a stuck run, never a
 * speed target: a loaded machine only makes the wait longer.
 *
 * @throws the last "not yet" error once `timeoutMs` has passed without a true answer.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number } = {}
): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error('condition not reached yet');
    },
    { timeout: options.timeoutMs ?? WAIT_UNTIL_TIMEOUT_MS, interval: options.intervalMs ?? 100 }
  );
}
