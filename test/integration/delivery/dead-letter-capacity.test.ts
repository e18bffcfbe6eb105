import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRecordDeadLetter, DEAD_LETTERED_ALERT_KIND } from '../../../activities/record-dead-letter.js';
import { createRootLogger } from '../../../common/logger.js';
import { createWindowedAlertSink } from '../../../common/windowed-alert-sink.js';
import { listDeadLetters, selectDeadLettersToReplay } from '../../../ops/index.js';
import { DEAD_LETTER_WORKFLOW_ID, type DeadLetterEntry, type DeadLetterPage } from '../../../workflows/contracts.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { startTestWorker } from '../../helpers/temporal-worker.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();

const DEAD_LETTERS = 5_000;

function entry(index: number): DeadLetterEntry {
  return {
    eventId: randomUUID(),
    type: 'messages.upsert',
    chatJid: `1203630000000${String(index % 50).padStart(5, '0')}@g.us`,
    httpStatus: 422,
    // The activity keeps 256 characters of the response; make every excerpt distinct and full-size.
    responseExcerpt: `{"code":"WA_ERR_VALIDATION","message":"payload rejected #${index}"}`.padEnd(256, '.'),
    bodySizeBytes: 1_000 + index,
    deadLetteredAt: new Date(Date.UTC(2026, 0, 1) + index * 1_000).toISOString(),
    resolvedAt: null,
    resolution: null,
  };
}

/**
 * One page of the open entries, or null when the query fails or takes over 3 s: a query that lands while the run
 * continues as new fails, or waits on the closing run for over a minute (seen on a loaded host); the next poll
 * asks the new run.
 */
function countOpenNow(): Promise<DeadLetterPage | null> {
  const client = harness.env.client;
  return client.withDeadline(Date.now() + 3_000, () => listDeadLetters(client, { pageSize: 1 })).catch(() => null);
}

async function listAllOpen(): Promise<DeadLetterEntry[]> {
  const listed: DeadLetterEntry[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page: DeadLetterPage = await listDeadLetters(harness.env.client, { pageSize: 1_000, offset });
    listed.push(...page.entries);
    offset = page.nextOffset;
  }
  return listed;
}

describe('dead letters at scale', () => {
  it('keeps 5,000 dead letters in reach across continue-as-new, and alerts once for them', async () => {
    const unused = 'http://127.0.0.1:9/unused';
    const worker = await startTestWorker(harness.env, harness.bundle, { webhookUrl: unused, alertUrl: unused });
    const alertLines: string[] = [];
    const alertSink = createWindowedAlertSink({
      windowMs: 15 * 60_000,
      logger: createRootLogger({
        level: 'error',
        destination: { write: (line: string) => void alertLines.push(line) },
      }),
    });
    // The real activity: signal-with-start of the dead-letter workflow with its default thresholds.
    const recordDeadLetter = createRecordDeadLetter({
      client: harness.env.client,
      taskQueue: worker.taskQueue,
      alertSink,
    });
    const entries = Array.from({ length: DEAD_LETTERS }, (_, index) => entry(index));
    try {
      const inFlight = 16;
      for (let start = 0; start < entries.length; start += inFlight) {
        await Promise.all(entries.slice(start, start + inFlight).map((item) => recordDeadLetter(item)));
        // Let the workflow take each few hundred in before sending more, as failing deliveries arrive in
        // production: on a loaded host thousands of queued signals in one activation crash the SDK's
        // workflow thread ("async hook stack has become corrupted").
        const sent = start + inFlight;
        if (sent % 256 === 0) {
          await waitUntil(async () => ((await countOpenNow())?.unresolvedCount ?? 0) >= sent, {
            what: 'the dead-letter workflow took the signals in',
            timeoutMs: 120_000,
            intervalMs: 50,
          });
        }
      }

      const listed = await listAllOpen();
      expect(listed).toHaveLength(DEAD_LETTERS);
      expect(new Set(listed.map((item) => item.eventId))).toEqual(new Set(entries.map((item) => item.eventId)));
      const page = await listDeadLetters(harness.env.client, { pageSize: 1 });
      expect(page.unresolvedCount).toBe(DEAD_LETTERS);
      // Entries come back whole, excerpt included, after the workflow carried them across runs.
      const first = listed.find((item) => item.eventId === entries[0]!.eventId);
      expect(first).toEqual(entries[0]);

      const selected = await selectDeadLettersToReplay(harness.env.client, { all: true });
      expect(selected).toHaveLength(DEAD_LETTERS);
      expect(new Set(selected)).toEqual(new Set(entries.map((item) => item.eventId)));

      const alerts = alertLines.map((line) => JSON.parse(line) as { msg: string; kind: string });
      expect(alerts.filter((record) => record.msg === 'alert').map((record) => record.kind)).toEqual([
        DEAD_LETTERED_ALERT_KIND,
      ]);
      // More than one run received the signals: the entries really crossed continue-as-new.
      const history = await harness.env.client.workflow.getHandle(DEAD_LETTER_WORKFLOW_ID).fetchHistory();
      expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    } finally {
      await harness.env.client.workflow
        .getHandle(DEAD_LETTER_WORKFLOW_ID)
        .terminate('test done')
        .catch(() => undefined);
      await worker.running.stop();
    }
  }, 600_000);
});
