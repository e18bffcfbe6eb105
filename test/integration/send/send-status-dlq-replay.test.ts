import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { replayDeadLetters } from '../../../ops/index.js';
import { DEAD_LETTER_WORKFLOW_ID, listDeadLettersQuery } from '../../../workflows/contracts.js';
import { sendStatusWebhookId } from '../../../workflows/send-contracts.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { startStatusWebhookTestbed, type StatusWebhookTestbed } from '../../helpers/status-webhook-testbed.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed({ server: 'local' });
// A real dev server: `wa-lake dlq replay` resets workflows, which the time-skipping server does not implement.
let testbed: StatusWebhookTestbed;
beforeAll(async () => {
  testbed = await startStatusWebhookTestbed(harness.env, harness.bundle, inject('databaseUrl'));
});
afterAll(async () => {
  await testbed?.close();
});

describe('dead-lettered status webhooks (ADR 0011)', () => {
  it('are delivered under the same webhook-id after `wa-lake dlq replay <webhook-id>`, which resolves the entry', async () => {
    const kit = await testbed.newKit();
    const { key } = await testbed.createKey(kit.accountId, '/fixed-later');
    let isFixed = false;
    testbed.receiver.answer = (path) => (path === '/fixed-later' && !isFixed ? 422 : 200);
    await kit.run(async () => {
      const id = await testbed.sendAndRead(key, { ticket: 7 });
      const queuedId = sendStatusWebhookId(id, 'queued');
      const deadLetters = harness.env.client.workflow.getHandle(DEAD_LETTER_WORKFLOW_ID);
      await waitUntil(async () => {
        const page = await deadLetters.query(listDeadLettersQuery, { limit: 1000 }).catch(() => null);
        return page?.entries.some((entry) => entry.eventId === queuedId) ?? false;
      });

      isFixed = true;
      const report = await replayDeadLetters(harness.env.client, { eventIds: [queuedId] }, 'receiver fixed');
      expect({ failed: report.failed, skipped: report.skipped }).toEqual({ failed: [], skipped: [] });
      expect(report.replayed.map((entry) => entry.eventId)).toEqual([queuedId]);
      await expect(harness.env.client.workflow.getHandle(queuedId).result()).resolves.toEqual({
        status: 200,
        outcome: 'delivered',
      });
      const attempts = testbed.receiver.received.filter((r) => r.headers['webhook-id'] === queuedId);
      expect(attempts.map((r) => r.answeredStatus)).toEqual([422, 200]);
      expect(attempts[1]?.body).toBe(attempts[0]?.body);
      await waitUntil(async () => {
        const page = await deadLetters.query(listDeadLettersQuery, { limit: 1000, includeResolved: true });
        return page.entries.some((entry) => entry.eventId === queuedId && entry.resolvedAt !== null);
      });
    });
  }, 240_000); // two waits of up to 100 s each: a loaded machine stretches them, it does not fail them
});
