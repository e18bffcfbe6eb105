import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  foldGroupMemberships,
  type StoredMembershipFact,
  type StoredSnapshot,
} from '../../../../lake/projections/fold-group-memberships.js';

const LID = '100000000000001@lid';
const PHONE = '5500000000001@s.whatsapp.net';
const SECOND_PHONE = '5500000000002@s.whatsapp.net';
const OTHER = '100000000000002@lid';
const owners = new Map([
  [PHONE, LID],
  [SECOND_PHONE, LID],
]);
const resolve = (key: string): string => owners.get(key) ?? key;
const fact = (
  participantKey: string,
  atMs: number,
  isPresent: boolean,
  role: StoredMembershipFact['role'] = null,
  eventId = `e-${atMs}`
): StoredMembershipFact => ({ participantKey, atMs, eventId, isPresent, role });
const snapshot = (atMs: number, members: StoredSnapshot['members']): StoredSnapshot => ({
  atMs,
  eventId: `s-${atMs}`,
  members,
});

describe('foldGroupMemberships', () => {
  it('counts the facts of a phone JID for the LID that owns it, and gives the phone no row of its own', () => {
    const states = foldGroupMemberships({
      facts: [fact(PHONE, 1, true, 'member'), fact(LID, 2, false)],
      snapshots: [],
      resolve,
      ids: [PHONE, LID],
    });
    expect(states).toEqual(
      new Map([
        [PHONE, null],
        [LID, { role: 'member', joinedAtMs: 1, leftAtMs: 2 }],
      ])
    );
  });

  it('resolves snapshot members stored under a phone JID, so a later LID-only snapshot is no departure', () => {
    const states = foldGroupMemberships({
      facts: [],
      snapshots: [snapshot(1, { [PHONE]: 'admin' }), snapshot(2, { [LID]: 'admin', [OTHER]: 'member' })],
      resolve,
      ids: [LID, OTHER],
    });
    expect(states.get(LID)).toEqual({ role: 'admin', joinedAtMs: 1, leftAtMs: null });
    expect(states.get(OTHER)).toEqual({ role: 'member', joinedAtMs: 2, leftAtMs: null });
  });

  it('counts one event that names the same person twice once, preferring the statement under the id itself', () => {
    const states = foldGroupMemberships({
      facts: [fact(PHONE, 1, true, 'admin', 'same'), fact(LID, 1, true, 'member', 'same')],
      snapshots: [snapshot(2, { [PHONE]: 'superadmin', [LID]: 'member' })],
      resolve,
      ids: [LID],
    });
    expect(states.get(LID)).toEqual({ role: 'member', joinedAtMs: 1, leftAtMs: null });
  });

  it('gives no row to an id with neither a fact nor a snapshot listing it', () => {
    const states = foldGroupMemberships({
      facts: [],
      snapshots: [snapshot(1, { [LID]: 'member' })],
      resolve,
      ids: [OTHER],
    });
    expect(states).toEqual(new Map([[OTHER, null]]));
  });

  it('is independent of the order of its facts and snapshots', () => {
    const keys = [LID, PHONE, SECOND_PHONE, OTHER];
    const arbitraryFact = fc.record({
      participantKey: fc.constantFrom(...keys),
      atMs: fc.integer({ min: 0, max: 10 }),
      eventId: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      isPresent: fc.boolean(),
      role: fc.constantFrom('member' as const, 'admin' as const, null),
    });
    const arbitrarySnapshot = fc.record({
      atMs: fc.integer({ min: 0, max: 10 }),
      eventId: fc.uuid(),
      members: fc.dictionary(fc.constantFrom(...keys), fc.constantFrom('member' as const, 'admin' as const)),
    });
    fc.assert(
      fc.property(
        // One fact per (key, event), as the primary key of whatsapp_membership_facts guarantees.
        fc.uniqueArray(arbitraryFact, { selector: (f) => `${f.participantKey}|${f.eventId}`, maxLength: 12 }),
        fc.uniqueArray(arbitrarySnapshot, { selector: (s) => s.eventId, maxLength: 4 }),
        (facts, snapshots) => {
          const forward = foldGroupMemberships({ facts, snapshots, resolve, ids: keys });
          const backward = foldGroupMemberships({
            facts: [...facts].reverse(),
            snapshots: [...snapshots].reverse(),
            resolve,
            ids: [...keys].reverse(),
          });
          expect(backward).toEqual(forward);
        }
      )
    );
  });
});
