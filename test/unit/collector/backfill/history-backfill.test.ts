import { proto } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackfillStore } from '../../../../collector/backfill/backfill-store.js';
import { HistoryBackfill, type HistoryFetchSocket } from '../../../../collector/backfill/history-backfill.js';
import { EventPipeline } from '../../../../collector/event-pipeline.js';
import { createRootLogger } from '../../../../common/logger.js';
import { GROUP, textMessage } from '../../../fixtures/collector/baileys-events.js';
import { historyPush } from '../../../fixtures/collector/history-push.js';
import { openTempOutbox } from '../../../fixtures/collector/temp-outbox.js';

const ON_DEMAND = proto.HistorySync.HistorySyncType.ON_DEMAND;
const MINUTE = 60_000;
const T = Date.parse('2026-03-01T12:00:00Z');
/** A group message `minutesAgo` before T. */
const at = (id: string, minutesAgo: number) => ({
  ...textMessage(GROUP, id),
  messageTimestamp: (T - minutesAgo * MINUTE) / 1000,
});

describe('HistoryBackfill (ADR 0016)', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  let now: number;
  let asked: Array<{ id: string; tsMs: number; count: number }>;
  let socket: HistoryFetchSocket;
  let finished: string[];
  const logger = createRootLogger({ level: 'silent' });

  const open = () => {
    const store = BackfillStore.open({ path: temp.path, now: () => now });
    const pipeline = new EventPipeline({ outbox: temp.outbox, logger, getSelfJid: () => null });
    const backfill = new HistoryBackfill({
      store,
      getSocket: () => socket,
      logger,
      pageSize: 2,
      requestIntervalMs: 30_000,
      answerTimeoutMs: 2 * MINUTE,
      maxAttempts: 2,
      onFinished: (done) => finished.push(`${done.groupJid}:${done.state}`),
      now: () => now,
    });
    /** WhatsApp answers a request: the pipeline stores the push, then the backfill reads it. */
    const answer = (messages: Array<Record<string, unknown>>) => {
      const push = historyPush(messages.length > 0 ? [{ id: GROUP, messages }] : [], { syncType: ON_DEMAND });
      pipeline.handle('messaging-history.set', push, new Date(now));
      backfill.onHistory(push);
    };
    return { store, backfill, answer };
  };

  beforeEach(() => {
    temp = openTempOutbox();
    now = T;
    asked = [];
    finished = [];
    socket = {
      fetchMessageHistory: vi.fn((count: number, key: { id: string }, tsMs: number) => {
        asked.push({ id: key.id, tsMs, count });
        return Promise.resolve('request-id');
      }),
    };
  });
  afterEach(() => temp.cleanup());

  it('asks page by page before the oldest message held, paced, until the gap is covered', () => {
    const { store, backfill, answer } = open();
    store.request(GROUP, T - 60 * MINUTE, { id: 'A0', fromMe: false, participant: null, tsMs: T });
    expect(backfill.tick()).toBe(GROUP);
    expect(backfill.tick()).toBeNull(); // one request out: nothing more until it is answered
    answer([at('A1', 10), at('A2', 20)]);
    expect(store.get(GROUP)).toMatchObject({ state: 'waiting', pages: 1, messages: 2 });
    backfill.tick();
    answer([at('A3', 40), at('A4', 70)]);
    expect(asked).toEqual([
      { id: 'A0', tsMs: T, count: 2 },
      { id: 'A2', tsMs: T - 20 * MINUTE, count: 2 },
    ]);
    expect(store.get(GROUP)).toMatchObject({ state: 'covered', pages: 2, messages: 4 });
    expect(finished).toEqual([`${GROUP}:covered`]);
    expect(temp.outbox.countByState().pending).toBe(4);
    expect(backfill.tick()).toBeNull();
  });

  it('asks again when an answer never comes, then gives up as unanswered', () => {
    const { store, backfill } = open();
    store.request(GROUP, T - 60 * MINUTE, { id: 'A0', fromMe: false, participant: null, tsMs: T });
    backfill.tick();
    now += MINUTE;
    expect(backfill.tick()).toBeNull();
    now += 2 * MINUTE;
    expect(backfill.tick()).toBe(GROUP);
    expect(asked.map((request) => request.id)).toEqual(['A0', 'A0']);
    now += 3 * MINUTE;
    backfill.tick();
    expect(store.get(GROUP)).toMatchObject({ state: 'unanswered', attempts: 2 });
    expect(finished).toEqual([`${GROUP}:unanswered`]);
  });

  it('stops when a page only repeats messages already held, adding no row', () => {
    const { store, backfill, answer } = open();
    store.request(GROUP, T - 60 * MINUTE, { id: 'A0', fromMe: false, participant: null, tsMs: T - 5 * MINUTE });
    backfill.tick();
    answer([at('A1', 10)]);
    const rows = temp.outbox.countByState().pending;
    backfill.tick();
    answer([at('A1', 10), at('A0', 5)]);
    expect(temp.outbox.countByState().pending).toBe(rows + 1);
    expect(store.get(GROUP)).toMatchObject({ state: 'exhausted', pages: 2 });
    expect(asked).toHaveLength(2);
  });

  it('resumes after a restart from the last answered cursor, never re-asking what was answered', () => {
    const first = open();
    first.store.request(GROUP, T - 60 * MINUTE, { id: 'A0', fromMe: false, participant: null, tsMs: T });
    first.backfill.tick();
    first.answer([at('A1', 10), at('A2', 20)]);
    first.store.close();
    const second = open();
    second.backfill.tick();
    expect(asked.map((request) => request.id)).toEqual(['A0', 'A2']);
    second.answer([]);
    expect(second.store.get(GROUP)).toMatchObject({ state: 'exhausted', pages: 2 });
    second.store.close();
  });
});
