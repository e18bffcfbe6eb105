import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxOpenError } from '../../../collector/errors.js';
import { OUTBOX_SCHEMA_VERSION } from '../../../collector/outbox-schema.js';
import { OutboxStore, type OutboxEventInput } from '../../../collector/outbox-store.js';
import { openTempOutbox } from '../../fixtures/collector/temp-outbox.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const event = (overrides: Partial<OutboxEventInput> = {}): OutboxEventInput => ({
  eventId: randomUUID(),
  type: 'messages.upsert',
  chatJid: '120363000000000001@g.us',
  body: '{"type":"messages.upsert"}',
  ...overrides,
});

describe('OutboxStore', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  beforeEach(() => {
    temp = openTempOutbox();
  });
  afterEach(() => temp.cleanup());

  it('opens with WAL and synchronous=FULL', () => {
    const db = new Database(temp.path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(temp.outbox.durabilitySettings()).toEqual({ journalMode: 'wal', synchronous: 2 });
  });

  it('stores a pending row with the exact body and ignores a second insert with the same event_id', () => {
    const first = event({ body: '{"a":"exact \\u00e9 bytes"}' });
    expect(temp.outbox.enqueueBatch([first], 1000)).toEqual({ inserted: 1, ignored: 0, deadInserted: 0 });
    expect(temp.outbox.enqueueBatch([{ ...first, body: '{"other":1}' }, event()], 2000)).toEqual({
      inserted: 1,
      ignored: 1,
      deadInserted: 0,
    });
    expect(temp.outbox.get(first.eventId)).toEqual({
      ...first,
      state: 'pending',
      startAttempts: 0,
      nextAttemptAt: 1000,
      createdAt: 1000,
      startedAt: null,
      lastError: null,
    });
  });

  it('lists due pending rows oldest first and leaves rows backing off', () => {
    const [a, b, c] = [event(), event(), event()];
    temp.outbox.enqueueBatch([a, b], 1000);
    temp.outbox.enqueueBatch([c], 2000);
    temp.outbox.recordStartFailure(a.eventId, 'temporal unreachable', 10_000);
    expect(temp.outbox.listDue(10, 5000).map((row) => row.eventId)).toEqual([b.eventId, c.eventId]);
    expect(temp.outbox.listDue(1, 5000).map((row) => row.eventId)).toEqual([b.eventId]);
    expect(temp.outbox.listDue(10, 10_000).map((row) => row.eventId)).toEqual([b.eventId, c.eventId, a.eventId]);
    expect(temp.outbox.get(a.eventId)).toMatchObject({
      state: 'pending',
      startAttempts: 1,
      lastError: 'temporal unreachable',
      nextAttemptAt: 10_000,
    });
  });

  it('moves rows pending → started, counts states and prunes started rows after retention', () => {
    const [a, b, c] = [event(), event(), event()];
    temp.outbox.enqueueBatch([a, b, c], 0);
    temp.outbox.markStarted([a.eventId, b.eventId], 1 * DAY_MS);
    expect(temp.outbox.countByState()).toEqual({ pending: 1, started: 2, dead: 0 });
    expect(temp.outbox.listDue(10, 2 * DAY_MS).map((row) => row.eventId)).toEqual([c.eventId]);
    expect(temp.outbox.pruneStarted(1 * DAY_MS)).toBe(0);
    expect(temp.outbox.pruneStarted(8 * DAY_MS - 7 * DAY_MS + 1)).toBe(2); // retention 7 days, now = day 8
    expect(temp.outbox.get(a.eventId)).toBeUndefined();
    expect(temp.outbox.countByState()).toEqual({ pending: 1, started: 0, dead: 0 });
  });

  it('keeps dedup at the source for a started row until it is pruned', () => {
    const a = event();
    temp.outbox.enqueueBatch([a], 0);
    temp.outbox.markStarted([a.eventId], 10);
    expect(temp.outbox.enqueueBatch([a], 20)).toMatchObject({ inserted: 0, ignored: 1 });
    expect(temp.outbox.get(a.eventId)?.state).toBe('started');
  });

  it('keeps dead rows with their reason and never starts or prunes them', () => {
    const dead = { ...event(), reason: 'body of 2000000 bytes is over the limit of 1048576 bytes' };
    expect(temp.outbox.enqueueDead([dead], 5)).toEqual({ inserted: 1, ignored: 0, deadInserted: 1 });
    temp.outbox.markStarted([dead.eventId], 6);
    expect(temp.outbox.pruneStarted(Number.MAX_SAFE_INTEGER)).toBe(0);
    expect(temp.outbox.listDead(10)).toEqual([
      {
        eventId: dead.eventId,
        type: dead.type,
        chatJid: dead.chatJid,
        body: dead.body,
        state: 'dead',
        startAttempts: 0,
        nextAttemptAt: 5,
        createdAt: 5,
        startedAt: null,
        lastError: dead.reason,
      },
    ]);
    expect(temp.outbox.listDue(10, 100)).toEqual([]);
  });

  it('reports the oldest pending created_at, or null', () => {
    expect(temp.outbox.oldestPendingCreatedAt()).toBeNull();
    const [a, b] = [event(), event()];
    temp.outbox.enqueueBatch([a], 500);
    temp.outbox.enqueueBatch([b], 900);
    temp.outbox.markStarted([a.eventId], 1000);
    expect(temp.outbox.oldestPendingCreatedAt()).toBe(900);
  });

  it('writes pending and dead rows of one event in one transaction', () => {
    const result = temp.outbox.enqueueWithDead(
      [event(), event()],
      [{ ...event(), reason: 'cannot serialize value at x: circular reference' }],
      1
    );
    expect(result).toEqual({ inserted: 3, ignored: 0, deadInserted: 1 });
    expect(temp.outbox.countByState()).toEqual({ pending: 2, started: 0, dead: 1 });
  });

  it('keeps its rows across close and reopen', () => {
    const a = event();
    temp.outbox.enqueueBatch([a], 1);
    temp.outbox.close();
    const reopened = OutboxStore.open({ path: temp.path });
    try {
      expect(reopened.get(a.eventId)?.body).toBe(a.body);
    } finally {
      reopened.close();
    }
  });

  it('postpones rows that were not tried without counting a start attempt (ADR 0008)', () => {
    const [a, b] = [event(), event()];
    temp.outbox.enqueueBatch([a, b], 1000);
    temp.outbox.recordStartFailure(a.eventId, 'temporal unreachable', 9000);
    temp.outbox.postponeUntried([b.eventId], 9000);
    expect(temp.outbox.get(a.eventId)).toMatchObject({ startAttempts: 1, nextAttemptAt: 9000 });
    expect(temp.outbox.get(b.eventId)).toMatchObject({ startAttempts: 0, nextAttemptAt: 9000, lastError: null });
    expect(temp.outbox.listDue(10, 8999)).toEqual([]);
  });

  it('tells listeners after a commit that inserted pending rows, not after dead-only or ignored inserts', () => {
    let calls = 0;
    const unsubscribe = temp.outbox.onPendingCommitted(() => {
      calls += 1;
      expect(temp.outbox.countByState().pending).toBeGreaterThan(0);
    });
    const a = event();
    temp.outbox.enqueueBatch([a], 1);
    temp.outbox.enqueueBatch([a], 2);
    temp.outbox.enqueueDead([{ ...event(), reason: 'too large' }], 3);
    expect(calls).toBe(1);
    unsubscribe();
    temp.outbox.enqueueBatch([event()], 4);
    expect(calls).toBe(1);
  });

  it('upgrades an outbox file written before the start_attempts rename and keeps its rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-outbox-v0-'));
    const path = join(dir, 'outbox.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE outbox (event_id TEXT PRIMARY KEY NOT NULL, type TEXT NOT NULL, chat_jid TEXT,
      body TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('pending', 'started', 'dead')),
      attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, created_at INTEGER NOT NULL,
      started_at INTEGER, last_error TEXT);
      INSERT INTO outbox VALUES ('e-1', 'messages.upsert', NULL, '{}', 'pending', 3, 50, 10, NULL, 'down');`);
    old.close();
    const upgraded = OutboxStore.open({ path });
    try {
      expect(upgraded.get('e-1')).toMatchObject({ state: 'pending', startAttempts: 3, lastError: 'down' });
      expect(upgraded.listDue(10, 50).map((row) => row.eventId)).toEqual(['e-1']);
      upgraded.close();
      const reopened = OutboxStore.open({ path });
      expect(reopened.get('e-1')).toMatchObject({ startAttempts: 3 });
      reopened.close();
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(OUTBOX_SCHEMA_VERSION);
      raw.close();
    } finally {
      upgraded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws OutboxOpenError for a path that cannot be opened', () => {
    expect(() => OutboxStore.open({ path: '/nonexistent-dir/x/outbox.sqlite' })).toThrow(OutboxOpenError);
  });
});
