import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { withCallSignal } from '../../../common/with-call-signal.js';

describe('withCallSignal', () => {
  it('leaves no listener on the parent after calls whose library never removes its own', async () => {
    const parent = new AbortController();
    for (let i = 0; i < 50; i++) {
      await withCallSignal(parent.signal, async (signal) => {
        signal.addEventListener('abort', () => undefined);
        return i;
      });
    }
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('aborts the running call when the parent aborts, with the parent’s reason', async () => {
    const parent = new AbortController();
    const reason = await withCallSignal(
      parent.signal,
      (signal) =>
        new Promise<unknown>((resolve) => {
          signal.addEventListener('abort', () => resolve(signal.reason));
          parent.abort('stopping');
        })
    );
    expect(reason).toBe('stopping');
  });

  it('starts aborted under an aborted parent', async () => {
    const parent = new AbortController();
    parent.abort('gone');
    expect(await withCallSignal(parent.signal, async (signal) => signal.aborted)).toBe(true);
  });
});
