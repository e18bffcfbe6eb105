import { describe, expect, it } from 'vitest';
import type { DeadLetterEntry, PackedDeadLetterEntries } from '../../../workflows/contracts.js';
import { packForCarry, packDeadLetters, unpackDeadLetters } from '../../../workflows/dead-letter-carry.js';

function entry(index: number, resolved = false): DeadLetterEntry {
  return {
    eventId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    type: index % 2 === 0 ? 'messages.upsert' : 'groups.update',
    chatJid: index % 3 === 0 ? null : '120363000000000001@g.us',
    httpStatus: index % 5 === 0 ? null : 422,
    responseExcerpt: `rejected ${index}`.padEnd(200, '.'),
    bodySizeBytes: index,
    deadLetteredAt: new Date(Date.UTC(2026, 0, 1) + index).toISOString(),
    resolvedAt: resolved ? new Date(Date.UTC(2026, 1, 1) + index).toISOString() : null,
    resolution: resolved ? 'replayed' : null,
  };
}

describe('dead-letter carry', () => {
  it('packs and unpacks entries unchanged, nulls included', () => {
    const entries = [entry(0), entry(1, true), entry(2), entry(3)];
    const wire = JSON.parse(JSON.stringify(packDeadLetters(entries))) as PackedDeadLetterEntries;
    expect(unpackDeadLetters(wire)).toEqual(entries);
  });

  it('carries every open entry and the newest resolved ones when they fit', () => {
    const entries = [entry(0, true), entry(1), entry(2, true), entry(3, true), entry(4)];
    const { packed, losses } = packForCarry(entries, 2);
    expect(unpackDeadLetters(packed).map((item) => item.bodySizeBytes)).toEqual([1, 2, 3, 4]);
    expect(losses).toEqual({ resolvedDropped: 1, excerptsDropped: false, openDropped: 0 });
  });

  it('over the budget gives up resolved entries, then excerpts, and open entries only last', () => {
    const open = Array.from({ length: 1_000 }, (_, index) => entry(index));
    const withResolved = [...open, entry(5_000, true)];
    const fullBytes = JSON.stringify(packDeadLetters(open)).length;
    const noExcerpts = packForCarry(withResolved, 10, fullBytes - 1);
    expect(noExcerpts.losses).toEqual({ resolvedDropped: 1, excerptsDropped: true, openDropped: 0 });
    expect(unpackDeadLetters(noExcerpts.packed)).toHaveLength(1_000);
    const tiny = packForCarry(withResolved, 10, 10_000);
    expect(tiny.losses.openDropped).toBeGreaterThan(0);
    expect(JSON.stringify(tiny.packed).length).toBeLessThanOrEqual(10_000);
    // The newest open entries are the ones kept.
    expect(unpackDeadLetters(tiny.packed).at(-1)?.bodySizeBytes).toBe(999);
  });
});
