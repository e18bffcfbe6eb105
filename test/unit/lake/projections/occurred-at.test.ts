import { describe, expect, it } from 'vitest';
import { eventTime, extractOccurredAt } from '../../../../lake/projections/occurred-at.js';

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

describe('extractOccurredAt', () => {
  it.each([
    ['number', 1700000000],
    ['decimal string', '1700000000'],
    ['Long object', { low: 1700000000, high: 0, unsigned: true }],
  ])('reads messageTimestamp seconds as a %s', (_name, messageTimestamp) => {
    expect(iso(extractOccurredAt('messages.upsert', { messageTimestamp }))).toBe('2023-11-14T22:13:20.000Z');
  });

  it('reads a Long whose low half is negative as unsigned', () => {
    // 3000000000 s = 2065-01-24; low half as signed int32 is negative.
    expect(
      iso(extractOccurredAt('messages.upsert', { messageTimestamp: { low: 3000000000 | 0, high: 0, unsigned: false } }))
    ).toBe('2065-01-24T05:20:00.000Z');
  });

  it('reads reaction senderTimestampMs, group subjectTime and creation, call date and member-tag time', () => {
    expect(iso(extractOccurredAt('messages.reaction', { reaction: { senderTimestampMs: 1700000200000 } }))).toBe(
      '2023-11-14T22:16:40.000Z'
    );
    expect(iso(extractOccurredAt('groups.update', { id: 'g', subjectTime: 1700000000 }))).toBe(
      '2023-11-14T22:13:20.000Z'
    );
    expect(iso(extractOccurredAt('groups.upsert', { id: 'g', creation: 1690000000 }))).toBe('2023-07-22T04:26:40.000Z');
    expect(iso(extractOccurredAt('call', { date: '2024-01-01T00:00:00.000Z' }))).toBe('2024-01-01T00:00:00.000Z');
    expect(iso(extractOccurredAt('call', { date: 1704067200000 }))).toBe('2024-01-01T00:00:00.000Z');
    expect(iso(extractOccurredAt('group.member-tag.update', { messageTimestamp: 1700000000 }))).toBe(
      '2023-11-14T22:13:20.000Z'
    );
  });

  it('gives null for types without a time, snapshots, and unusable values', () => {
    expect(extractOccurredAt('group-participants.update', { id: 'g', participants: [] })).toBeNull();
    expect(extractOccurredAt('groups.metadata', { id: 'g', subjectTime: 1700000000 })).toBeNull();
    expect(extractOccurredAt('messages.upsert', { messageTimestamp: 'soon' })).toBeNull();
    expect(extractOccurredAt('messages.upsert', { messageTimestamp: 1e300 })).toBeNull();
    expect(extractOccurredAt('messages.upsert', [1, 2])).toBeNull();
  });
});

describe('eventTime', () => {
  const captured = new Date('2025-06-02T10:00:00Z');
  const received = new Date('2025-06-03T00:00:00Z');
  it('believes an own time up to a day after the capture time', () => {
    const dayLater = new Date('2025-06-03T10:00:00Z');
    expect(eventTime(dayLater, captured, received)).toEqual({ at: dayLater, hasOwnTime: true });
  });
  it('takes the capture time, else the receipt time, for an own time more than a day after it', () => {
    const future = new Date('2199-12-08T00:00:00Z');
    expect(eventTime(future, captured, received)).toEqual({ at: captured, hasOwnTime: false });
    expect(eventTime(future, null, received)).toEqual({ at: received, hasOwnTime: false });
    expect(eventTime(null, captured, received)).toEqual({ at: captured, hasOwnTime: false });
  });
});
