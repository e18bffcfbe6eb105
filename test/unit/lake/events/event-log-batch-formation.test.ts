import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { EventLogBatchWriter, type EventLogInsertOutcome } from '../../../../lake/events/event-log-batch-writer.js';
import type { EventLogRow } from '../../../../lake/events/event-log-rows.js';

/** A pool whose statements stay running until the test finishes them, in any order. */
class HeldStatements {
  readonly running: Array<{ eventIds: string[]; finish: () => void }> = [];
  readonly pool = {
    query: (config: { values: string[] }): Promise<{ rows: Array<{ event_id: string }> }> => {
      const eventIds = (JSON.parse(config.values[0] ?? '[]') as Array<{ e: string }>).map((record) => record.e);
      return new Promise((resolve) => {
        this.running.push({ eventIds, finish: () => resolve({ rows: eventIds.map((id) => ({ event_id: id })) }) });
      });
    },
  } as unknown as pg.Pool;

  /** Row counts of the statements started so far, in order. */
  sizes(): number[] {
    return this.running.map((statement) => statement.eventIds.length);
  }

  async finish(index: number): Promise<void> {
    this.running[index]?.finish();
    await settled();
  }
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function row(): EventLogRow {
  const eventId = randomUUID();
  return {
    id: randomUUID(),
    eventId,
    type: 'messages.upsert',
    chatJid: null,
    bodyText: '{"type":"messages.upsert","payload":{}}',
    receivedAt: new Date('2030-01-01T00:00:00.000Z'),
    capturedAt: null,
    upsertType: null,
    occurredAt: null,
    isSanitized: false,
  };
}

describe('EventLogBatchWriter batch formation (ADR 0006)', () => {
  it('writes a lone row at once, and while a statement runs waits for as many rows as the last one carried', async () => {
    const statements = new HeldStatements();
    const writer = new EventLogBatchWriter(statements.pool, { maxConcurrentBatches: 2 });
    const outcomes: Array<Promise<EventLogInsertOutcome>> = [];
    const insert = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i += 1) outcomes.push(writer.insert(row()));
      await settled();
    };
    await insert(2); // idle: each goes at once, one statement per slot
    expect(statements.sizes()).toEqual([1, 1]);
    await insert(4); // both slots busy: they queue
    await statements.finish(0);
    expect(statements.sizes()).toEqual([1, 1, 4]);
    await statements.finish(2); // the last statement carried 4 rows; statement 1 still runs
    await insert(3);
    expect(statements.sizes()).toEqual([1, 1, 4]);
    await insert(1);
    expect(statements.sizes()).toEqual([1, 1, 4, 4]);
    await insert(2);
    await statements.finish(3); // 2 rows wait, fewer than 4, while statement 1 still runs
    expect(statements.sizes()).toEqual([1, 1, 4, 4]);
    await statements.finish(1); // nothing runs any more: whatever waits goes at once
    expect(statements.sizes()).toEqual([1, 1, 4, 4, 2]);
    await statements.finish(4);
    expect(await Promise.all(outcomes)).toEqual(outcomes.map(() => 'stored'));
  });
});
