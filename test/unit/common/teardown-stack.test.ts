import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { TeardownStack } from '../../../common/teardown-stack.js';

const silent = pino({ level: 'silent' });

describe('TeardownStack', () => {
  it('stops the next component when one hangs past the step timeout, and the first-deferred one last', async () => {
    const stopped: string[] = [];
    const stack = new TeardownStack({ logger: silent, stepTimeoutMs: 50 });
    stack.defer('temporal-dev-server', () => stopped.push('temporal-dev-server'));
    stack.defer('embedded-postgres', () => new Promise<void>(() => {}));
    stack.defer('ingest-api', () => Promise.resolve(void stopped.push('ingest-api')));
    await stack.disposeAsync();
    expect(stopped).toEqual(['ingest-api', 'temporal-dev-server']);
  });

  it('runs every step although one throws or rejects, and never throws itself', async () => {
    const stopped: string[] = [];
    const stack = new TeardownStack({ logger: silent });
    stack.defer('outbox', () => stopped.push('outbox'));
    stack.defer('relay', () => Promise.reject(new Error('relay refused to stop')));
    stack.defer('session', () => {
      throw new Error('session refused to stop');
    });
    await expect(stack.disposeAsync()).resolves.toBeUndefined();
    expect(stopped).toEqual(['outbox']);
  });

  it('stops each step once: a second dispose finds nothing left', async () => {
    let stops = 0;
    const stack = new TeardownStack({ logger: silent });
    stack.defer('lock', () => (stops += 1));
    await stack.disposeAsync();
    await stack.disposeAsync();
    expect(stops).toBe(1);
  });
});
