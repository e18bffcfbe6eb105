/**
 * Runs `call` with an abort signal of its own that follows `parent` only while the call runs: a library that adds a
 * listener to the signal of every call and never removes it (the Temporal client's `withAbortSignal`) then leaves
 * nothing behind on a long-lived parent such as a process's stop signal.
 */
export async function withCallSignal<T>(parent: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const follow = (): void => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  try {
    return await call(controller.signal);
  } finally {
    parent.removeEventListener('abort', follow);
  }
}
