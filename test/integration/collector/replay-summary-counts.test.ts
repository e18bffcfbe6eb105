import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeReplayCounts } from '../../../cli/commands/collector.js';
import { formatCaptureLine } from '../../../collector/capture/capture-line.js';
import { replayCapture } from '../../../collector/capture/replay-capture.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import * as b from '../../../examples/capture-builders.js';
import { createRecordingLogger, createTempDir } from '../../helpers/collector-test-kit.js';

const BODY_LIMIT_BYTES = 64 * 1024;
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

/** Counts of the printed `items` line of `wa-lake replay`, parsed back from the text a user reads. */
function printedCounts(lines: string[]): { items: number; kept: number; new: number; already: number; dead: number } {
  const match =
    /items\s*: (\d+) = (\d+) kept \+ \d+ dropped; kept: (\d+) new in the outbox, (\d+) already there, (\d+) dead/.exec(
      lines.join('\n')
    );
  if (match === null) throw new Error(`no items line in:\n${lines.join('\n')}`);
  const [items, kept, fresh, already, dead] = match.slice(1).map(Number) as [number, number, number, number, number];
  return { items, kept, new: fresh, already, dead };
}

/**
 * Three normal messages (one emitted twice) and an over-size message emitted twice: 6 kept items,
 * 4 distinct rows (3 pending, 1 dead).
 */
function writeCapture(path: string): void {
  const upsert = (id: string, text: string, seconds: number): string =>
    formatCaptureLine(
      'messages.upsert',
      { type: 'notify', messages: [b.textMessage(b.GROUP_A, id, 1, seconds, text)] },
      new Date(seconds * 1000)
    );
  const big = upsert('3EB0CBIG', 'x'.repeat(BODY_LIMIT_BYTES + 1024), b.T0 + 4);
  const first = upsert('3EB0C1', 'one', b.T0 + 1);
  const lines = [first, upsert('3EB0C2', 'two', b.T0 + 2), big, first, upsert('3EB0C3', 'three', b.T0 + 3), big];
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('wa-lake replay summary (new + already there + dead = kept)', () => {
  it('partitions kept items into new, already there and dead, and dead matches the dead rows written, on both runs', async () => {
    const { dir, cleanup } = createTempDir('replay-counts');
    const outbox = OutboxStore.open({ path: join(dir, 'outbox.sqlite') });
    cleanups.push(cleanup, () => outbox.close());
    const pipeline = new EventPipeline({
      outbox,
      logger: createRecordingLogger().logger,
      getSelfJid: () => null,
      limits: { bodyLimitBytes: BODY_LIMIT_BYTES, inlineBinaryLimitBytes: 64 * 1024 },
    });
    const capture = join(dir, 'capture.jsonl');
    writeCapture(capture);

    const first = printedCounts(describeReplayCounts(await replayCapture({ path: capture, pipeline })));
    const afterFirst = outbox.countByState();
    expect(afterFirst).toEqual({ pending: 3, started: 0, dead: 1 });
    // The repeated normal and the repeated over-size item are both "already there" the second time.
    expect(first).toEqual({ items: 6, kept: 6, new: 3, already: 2, dead: 1 });
    expect(first.new + first.already + first.dead).toBe(first.kept);
    expect(first.new).toBe(afterFirst.pending);
    expect(first.dead).toBe(afterFirst.dead);

    const second = printedCounts(describeReplayCounts(await replayCapture({ path: capture, pipeline })));
    expect(outbox.countByState()).toEqual(afterFirst);
    expect(second).toEqual({ items: 6, kept: 6, new: 0, already: 6, dead: 0 });
    expect(second.new + second.already + second.dead).toBe(second.kept);
  });
});
