import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addDeadLetterSignal,
  listDeadLettersQuery,
  resolveDeadLettersSignal,
  type DeadLetterEntry,
  type DeadLetterPage,
} from '../../../workflows/contracts.js';
import { deadLetter } from '../../../workflows/index.js';
import { useDeliveryTestbed } from '../../helpers/delivery-testbed.js';

const testbed = useDeliveryTestbed();

function entry(index: number): DeadLetterEntry {
  return {
    eventId: randomUUID(),
    type: 'messages.upsert',
    chatJid: '120363000000000001@g.us',
    httpStatus: 422,
    responseExcerpt: `{"code":"WA_ERR_VALIDATION","n":${index}}`,
    bodySizeBytes: 100 + index,
    deadLetteredAt: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
    resolvedAt: null,
    resolution: null,
  };
}

describe('deadLetter workflow', () => {
  it('keeps entries across continue-as-new, pages them, and resolves them by signal', async () => {
    const unused = 'http://127.0.0.1:9/unused';
    const worker = await testbed.startWorker({ webhookUrl: unused, alertUrl: unused });
    const workflowId = `dead-letter-${randomUUID()}`;
    const entries = Array.from({ length: 12 }, (_, index) => entry(index));
    const runIds = new Set<string>();
    // The dead-letter workflow never completes: end it after the test (the testbed stops the worker first).
    testbed.defer(() =>
      testbed.env.client.workflow
        .getHandle(workflowId)
        .terminate('test done')
        .catch(() => undefined)
    );
    for (const item of entries) {
      const signalled = await testbed.env.client.workflow.signalWithStart(deadLetter, {
        workflowId,
        taskQueue: worker.taskQueue,
        args: [{ continueAsNewAfterSignals: 5 }],
        signal: addDeadLetterSignal,
        signalArgs: [item],
      });
      runIds.add(signalled.signaledRunId);
    }
    // A second signal for the same event replaces it instead of duplicating it.
    await testbed.env.client.workflow
      .getHandle(workflowId)
      .signal(addDeadLetterSignal, { ...entries[0]!, responseExcerpt: 'again' });
    const handle = testbed.env.client.workflow.getHandle(workflowId);

    const pages: DeadLetterPage[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: DeadLetterPage = await handle.query(listDeadLettersQuery, { offset, limit: 5 });
      pages.push(page);
      offset = page.nextOffset;
    }
    expect(pages.map((page) => page.entries.length)).toEqual([5, 5, 2]);
    const listed = pages.flatMap((page) => page.entries);
    expect(new Set(listed.map((item) => item.eventId))).toEqual(new Set(entries.map((item) => item.eventId)));
    expect(listed.find((item) => item.eventId === entries[0]!.eventId)?.responseExcerpt).toBe('again');

    await handle.signal(resolveDeadLettersSignal, {
      eventIds: [entries[1]!.eventId, entries[2]!.eventId, randomUUID()],
      reason: 'ingest fixed',
    });
    const open = await handle.query(listDeadLettersQuery, { limit: 100 });
    expect(open.total).toBe(10);
    expect(open.unresolvedCount).toBe(10);
    const all = await handle.query(listDeadLettersQuery, { limit: 100, includeResolved: true });
    expect(all.total).toBe(12);
    expect(all.entries.find((item) => item.eventId === entries[1]!.eventId)).toMatchObject({
      resolution: 'ingest fixed',
    });

    // Signals were received by more than one run: the workflow continued as new, entries intact.
    runIds.add((await handle.describe()).runId);
    expect(runIds.size).toBeGreaterThan(1);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });
});
