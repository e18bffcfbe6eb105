import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forgetInDeadLetters, listDeadLetters } from '../../../ops/index.js';
import {
  addDeadLetterSignal,
  DEAD_LETTER_WORKFLOW_ID,
  ERASED_EXCERPT,
  type DeadLetterEntry,
} from '../../../workflows/contracts.js';
import { deadLetter } from '../../../workflows/index.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { startTestWorker } from '../../helpers/temporal-worker.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();
// ADR 0010: `wa-lake forget` reaches the entries kept in the dead-letter workflow's state.

const entry = (responseExcerpt: string): DeadLetterEntry => ({
  eventId: randomUUID(),
  type: 'messages.upsert',
  chatJid: '120363000000000001@g.us',
  httpStatus: 422,
  responseExcerpt,
  bodySizeBytes: 100,
  deadLetteredAt: '2026-01-01T00:00:00.000Z',
  resolvedAt: null,
  resolution: null,
});

describe('forgetInDeadLetters', () => {
  it("blanks the excerpts of the member's entries by event id, leaves the others, and is idempotent", async () => {
    const unused = 'http://127.0.0.1:9/unused';
    const worker = await startTestWorker(harness.env, harness.bundle, { webhookUrl: unused, alertUrl: unused });
    const phoneJid = '5511987654321@s.whatsapp.net';
    const naming = entry(`{"code":"WA_ERR_INVALID_BODY","error":"bad participant 5511987654321:3@s.whatsapp.net"}`);
    const authored = entry('{"code":"WA_ERR_INVALID_BODY"}');
    const other = entry('{"code":"WA_ERR_INVALID_BODY","error":"bad participant 5511000000000@s.whatsapp.net"}');
    try {
      for (const item of [naming, authored, other]) {
        await harness.env.client.workflow.signalWithStart(deadLetter, {
          workflowId: DEAD_LETTER_WORKFLOW_ID,
          taskQueue: worker.taskQueue,
          args: [{}],
          signal: addDeadLetterSignal,
          signalArgs: [item],
        });
      }
      expect(await forgetInDeadLetters(harness.env.client, [phoneJid], new Set([authored.eventId]))).toBe(2);
      const excerpts = async (): Promise<Record<string, string>> =>
        Object.fromEntries(
          (await listDeadLetters(harness.env.client, { pageSize: 100, includeResolved: true })).entries.map((item) => [
            item.eventId,
            item.responseExcerpt,
          ])
        );
      await waitUntil(async () => (await excerpts())[naming.eventId] === ERASED_EXCERPT, {
        what: 'the redaction signal is applied',
      });
      expect(await excerpts()).toEqual({
        [naming.eventId]: ERASED_EXCERPT,
        [authored.eventId]: ERASED_EXCERPT,
        [other.eventId]: other.responseExcerpt,
      });
      expect(await forgetInDeadLetters(harness.env.client, [phoneJid], new Set([authored.eventId]))).toBe(0);
    } finally {
      await worker.running.stop();
    }
  });
});
