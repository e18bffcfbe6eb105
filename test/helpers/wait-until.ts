import { vi } from 'vitest';

/** The default patience of {@link waitUntil}: most of the suite's 120 s test budget, so load stretches, not breaks. */
export const WAIT_UNTIL_TIMEOUT_MS = 100_000;

/** How {@link waitUntil} waits: what it waits for (named when it gives up), its ceiling and its pace. */
export interface WaitUntilOptions {
  /** What the wait is for, in words ("the first POST is in flight"); the error names it when time runs out. */
  what?: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Resolves once `check` answers true, asking again every `intervalMs` (vitest's `vi.waitFor` underneath): the one
 * polling helper of the tests, for state that has no event to await (a search attribute while a workflow is
 * blocked, a request a fake server received). The budget is a ceiling for a stuck run, never a speed target: a
 * loaded machine only makes the wait longer.
 *
 * @throws the last "not yet" error, naming `what`, once `timeoutMs` has passed without a true answer.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  options: WaitUntilOptions = {}
): Promise<void> {
  const notYet = `not reached yet: ${options.what ?? 'the condition'}`;
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(notYet);
    },
    { timeout: options.timeoutMs ?? WAIT_UNTIL_TIMEOUT_MS, interval: options.intervalMs ?? 100 }
  );
}
