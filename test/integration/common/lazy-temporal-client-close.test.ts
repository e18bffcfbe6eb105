import { describe, expect, it } from 'vitest';
import { createLazyTemporalClient } from '../../../common/lazy-temporal-client.js';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { waitUntil } from '../../helpers/wait-until.js';

describe('closing a lazy Temporal client while a call is retrying', () => {
  it('ends the call in flight with an error instead of a retry that throws from a timer', async () => {
    const address = `127.0.0.1:${await findFreePort()}`;
    const temporal = createLazyTemporalClient({
      address,
      namespace: 'default',
      connectionOptions: { address },
      summary: { tls: 'off', apiKey: false },
    });
    let outcome: 'pending' | 'resolved' | 'rejected' = 'pending';
    temporal.client.workflow.start('deliverEvent', { taskQueue: 'nowhere', workflowId: 'close-test' }).then(
      () => (outcome = 'resolved'),
      () => (outcome = 'rejected')
    );
    // The first attempts fail with UNAVAILABLE; the SDK retries them on timers that close() does not clear.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await temporal.close();

    // Without the guard, the next retry reaches the closed channel, throws "Channel has been shut down" from its
    // timer (an uncaught exception) and the start never settles.
    await waitUntil(() => outcome !== 'pending');
    expect(outcome).toBe('rejected');
  }, 120_000);
});
