/**
 * Awaits `check()` until it returns true, polling every `intervalMs` (real time), for state that has no
 * event to await (e.g. a search attribute while a workflow is blocked). Not a timing assertion.
 * @throws Error after `timeoutMs` with `what` in the message.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
  intervalMs = 100
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
