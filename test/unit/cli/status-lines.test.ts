import { describe, expect, it } from 'vitest';
import { describeBackfill, RECENT_BACKFILL_MS, selectBackfills } from '../../../cli/commands/backfill-status.js';
import { describeHistoryImport } from '../../../cli/commands/status.js';
import type { Backfill } from '../../../collector/index.js';

const running = {
  percent: 63,
  items: 12_270,
  itemsPerSecond: 410,
  etaMs: 95_000,
  syncType: 'INITIAL_BOOTSTRAP',
  pushes: 14,
  startedAt: '2026-11-29T07:02:11.000Z',
  updatedAt: '2026-11-29T07:02:41.000Z',
  isDone: false,
  updatedAgeMs: 3_000,
};

describe('the history line of wa-lake status (ADR 0016)', () => {
  it('says a running import with percentage, events kept, rate and ETA; a finished one with its totals', () => {
    expect(describeHistoryImport(running)).toBe(
      'history      : INITIAL_BOOTSTRAP import running, 63 % per WhatsApp, 12,270 events kept in 14 pushes at 410/s, ETA 95 s (last push 3 s ago)'
    );
    expect(describeHistoryImport({ ...running, percent: null, etaMs: null, syncType: null })).toContain(
      'import running, no percentage from WhatsApp, 12,270 events kept in 14 pushes at 410/s, ETA unknown'
    );
    expect(describeHistoryImport({ ...running, percent: 100, etaMs: 0, isDone: true })).toBe(
      'history      : INITIAL_BOOTSTRAP import done at 2026-11-29T07:02:41.000Z: 12,270 events kept in 14 pushes at 410/s'
    );
    expect(
      describeHistoryImport({ ...running, items: 50, pushes: 1, itemsPerSecond: null, percent: 100, isDone: true })
    ).toBe('history      : INITIAL_BOOTSTRAP import done at 2026-11-29T07:02:41.000Z: 50 events kept in 1 push');
    expect(describeHistoryImport(null)).toBe('history      : no history import since the collector started');
  });
});

describe('the backfill lines of wa-lake status (ADR 0016 "Backfill feedback")', () => {
  const base = {
    groupJid: '120363000000000001@g.us',
    isOpen: true,
    since: '2026-01-01',
    reachedAt: null,
    attempts: 0,
    pages: 0,
    messages: 0,
    updatedAt: '2026-03-05T10:00:00.000Z',
    updatedAgeMs: 12_000,
  };

  it('says each state in plain words, with pages, messages and the time reached', () => {
    expect(describeBackfill({ ...base, state: 'waiting' }, 3)).toBe(
      'backfill     : 120363000000000001@g.us waiting to be asked, back to 2026-01-01; no page asked yet (updated 12 s ago)'
    );
    const reached = { reachedAt: '2026-02-10T08:00:00.000Z', pages: 2, messages: 100 };
    expect(describeBackfill({ ...base, ...reached, state: 'asked', attempts: 1 }, 3)).toBe(
      "backfill     : 120363000000000001@g.us waiting for WhatsApp's answer (request 1 of 3), back to 2026-01-01: 2 pages, 100 messages so far, reached 2026-02-10T08:00:00.000Z (updated 12 s ago)"
    );
    expect(describeBackfill({ ...base, ...reached, state: 'waiting' }, 3, true)).toBe(
      'backfill     : 120363000000000001@g.us waiting to ask its next page, back to 2026-01-01: 2 pages, 100 messages so far, reached 2026-02-10T08:00:00.000Z (updated 12 s ago); the collector of this outbox is a replay, which never asks WhatsApp: it waits for a live collector'
    );
    expect(describeBackfill({ ...base, ...reached, state: 'covered', isOpen: false, updatedAgeMs: 180_000 }, 3)).toBe(
      'backfill     : 120363000000000001@g.us covered back to 2026-01-01: 2 pages, 100 messages (ended 3 min ago)'
    );
  });

  it('lists open backfills and those that ended in the last 7 days', () => {
    const nowMs = Date.parse('2026-03-10T00:00:00Z');
    const backfill = (groupJid: string, state: Backfill['state'], updatedAtMs: number): Backfill => ({
      groupJid,
      sinceMs: Date.parse('2026-01-01T00:00:00Z'),
      state,
      cursor: null,
      anchorTsMs: null,
      askedAtMs: null,
      attempts: 0,
      pages: 0,
      messages: 0,
      updatedAtMs,
    });
    const old = nowMs - RECENT_BACKFILL_MS - 1;
    const listed = selectBackfills(
      [
        backfill('a@g.us', 'covered', old),
        backfill('b@g.us', 'waiting', old),
        backfill('c@g.us', 'unanswered', nowMs - 1000),
      ],
      nowMs
    );
    expect(listed.map((b) => [b.groupJid, b.state, b.isOpen])).toEqual([
      ['b@g.us', 'waiting', true],
      ['c@g.us', 'unanswered', false],
    ]);
  });
});
