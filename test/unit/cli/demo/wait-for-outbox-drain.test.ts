import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForOutboxDrain } from '../../../../cli/demo/wait-for-outbox-drain.js';
import { ShutdownRequestedError } from '../../../../cli/run-until-os-signal.js';
import { openTempOutbox } from '../../../fixtures/collector/temp-outbox.js';

const HOUR_MS = 3_600_000;

describe('waitForOutboxDrain', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  beforeEach(() => {
    temp = openTempOutbox();
    temp.outbox.enqueueBatch(
      [{ eventId: randomUUID(), type: 'messages.upsert', chatJid: '120363000000000001@g.us', body: '{}' }],
      1000
    );
  });
  afterEach(() => temp.cleanup());

  // Fix-a-thon defect 1: Ctrl-C during `demo` waited for the whole delivery timeout. With an hour-long
  // timeout, the old loop would outlive the test's own timeout.
  it('gives way to an abort at once instead of waiting for the timeout', async () => {
    const controller = new AbortController();
    const waiting = waitForOutboxDrain(temp.outbox, HOUR_MS, 20, controller.signal);
    setTimeout(() => controller.abort(new ShutdownRequestedError('SIGINT')), 50);
    await expect(waiting).rejects.toBeInstanceOf(ShutdownRequestedError);
  });

  it('still reports the rows left pending when the timeout passes', async () => {
    await expect(waitForOutboxDrain(temp.outbox, 1, 1)).resolves.toBe(1);
  });
});
