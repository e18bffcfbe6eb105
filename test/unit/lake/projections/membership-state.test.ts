import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeMembershipState, type MembershipEntry } from '../../../../lake/projections/membership-state.js';

const entry = (
  atMs: number,
  isPresent: boolean,
  role: MembershipEntry['role'] = null,
  eventId = `e-${atMs}`
): MembershipEntry => ({ atMs, eventId, isPresent, role });

describe('computeMembershipState', () => {
  it('sets left_at on leave and clears it on re-entry', () => {
    expect(computeMembershipState([entry(1, true, 'member'), entry(2, false)])).toEqual({
      role: 'member',
      joinedAtMs: 1,
      leftAtMs: 2,
    });
    expect(computeMembershipState([entry(3, true, 'member'), entry(1, true, 'member'), entry(2, false)])).toEqual({
      role: 'member',
      joinedAtMs: 3,
      leftAtMs: null,
    });
  });

  it('keeps the first absence of the final run as left_at and applies role changes', () => {
    expect(computeMembershipState([entry(1, true, 'member'), entry(2, false), entry(3, false)])).toMatchObject({
      leftAtMs: 2,
    });
    expect(computeMembershipState([entry(1, true, 'member'), entry(2, true, 'admin')])).toEqual({
      role: 'admin',
      joinedAtMs: 1,
      leftAtMs: null,
    });
  });

  it('breaks ties by event_id', () => {
    expect(computeMembershipState([entry(1, true, 'member', 'b'), entry(1, false, null, 'a')])).toMatchObject({
      leftAtMs: null,
    });
    expect(computeMembershipState([entry(1, true, 'member', 'a'), entry(1, false, null, 'b')])).toMatchObject({
      leftAtMs: 1,
    });
  });

  it('is independent of the order of its entries', () => {
    const arbitraryEntry = fc.record({
      atMs: fc.integer({ min: 0, max: 20 }),
      eventId: fc.uuid(),
      isPresent: fc.boolean(),
      role: fc.constantFrom('member' as const, 'admin' as const, 'superadmin' as const, null),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(arbitraryEntry, { selector: (e) => e.eventId, maxLength: 30 }),
        fc.infiniteStream(fc.nat()),
        (entries, seeds) => {
          const shuffled = [...entries].sort(() => (seeds.next().value % 3) - 1);
          expect(computeMembershipState(shuffled)).toEqual(computeMembershipState(entries));
        }
      )
    );
  });
});
