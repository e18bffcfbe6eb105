import { computeMembershipState, type MembershipEntry, type MembershipState } from './membership-state.js';
import type { MembershipRole } from './participant-ref.js';

/** One `whatsapp_membership_facts` row, keyed as its event named the participant (LID, phone JID or raw id). */
export interface StoredMembershipFact extends MembershipEntry {
  participantKey: string;
}

/** One `whatsapp_group_snapshots` row: participant key (as the event named it) → role. */
export interface StoredSnapshot {
  /** Event time, epoch ms. */
  atMs: number;
  eventId: string;
  members: Readonly<Record<string, MembershipRole>>;
  /**
   * False for a partial snapshot (fewer participants than its `size`, architecture.md §9): it adds
   * and updates the members it lists and removes no one. Absent or true: complete.
   */
  isComplete?: boolean;
}

/** Inputs of {@link foldGroupMemberships}: everything stored for one group that can concern `ids`. */
export interface GroupMembershipInput {
  facts: readonly StoredMembershipFact[];
  snapshots: readonly StoredSnapshot[];
  /** Participant key → participant id: a phone JID → the LID that owns it, anything else → itself. */
  resolve: (key: string) => string;
  /** The membership rows to compute (participant ids or keys that may have been merged away). */
  ids: Iterable<string>;
}

/**
 * Computes `whatsapp_group_memberships` rows of one group from its stored facts and snapshots, with
 * every participant key resolved through the LID↔phone aliases (architecture.md §9, ADR 0004): the facts of a
 * phone JID count for the LID that owns it. A pure function of the sets it is given, so any order of
 * arrival gives the same rows.
 *
 * - A row exists only for an id that `resolve` maps to itself and that has at least one fact or one
 *   snapshot listing it; every other id maps to null (its row must be deleted).
 * - A snapshot listing a participant is a presence with the listed role; a complete snapshot not
 *   listing a participant with a row is an absence at the snapshot's time (a partial one says nothing).
 * - Snapshots are timed facts (observed at their capture time); facts carry their own rank (ADR 0007).
 * - One event stating the same person under two keys (its LID and its phone JID) counts once: the
 *   statement under the id itself wins, then the smallest key (UTF-16 code-unit order).
 *
 * @returns id → state, or null when the id must have no row.
 */
export function foldGroupMemberships(input: GroupMembershipInput): Map<string, MembershipState | null> {
  type KeyedEntry = MembershipEntry & { key: string };
  const byId = new Map<string, Map<string, KeyedEntry>>();
  const add = (id: string, key: string, entry: MembershipEntry): void => {
    let events = byId.get(id);
    if (!events) byId.set(id, (events = new Map<string, KeyedEntry>()));
    const current = events.get(entry.eventId);
    if (!current || isPreferredKey(id, key, current.key)) events.set(entry.eventId, { ...entry, key });
  };
  for (const { participantKey, ...entry } of input.facts) add(input.resolve(participantKey), participantKey, entry);
  const listed = input.snapshots.map((snapshot) => {
    const roles = new Map<string, { key: string; role: MembershipRole }>();
    for (const [key, role] of Object.entries(snapshot.members)) {
      const id = input.resolve(key);
      const current = roles.get(id);
      if (!current || isPreferredKey(id, key, current.key)) roles.set(id, { key, role });
    }
    return { snapshot, roles };
  });
  const result = new Map<string, MembershipState | null>();
  for (const id of input.ids) {
    if (result.has(id)) continue;
    const entries: MembershipEntry[] = [...(byId.get(id)?.values() ?? [])];
    const isMergedAway = input.resolve(id) !== id;
    if (isMergedAway || (entries.length === 0 && !listed.some(({ roles }) => roles.has(id)))) {
      result.set(id, null);
      continue;
    }
    for (const { snapshot, roles } of listed) {
      const role = roles.get(id)?.role;
      if (role === undefined && snapshot.isComplete === false) continue;
      entries.push({
        atMs: snapshot.atMs,
        eventId: snapshot.eventId,
        isPresent: role !== undefined,
        role: role ?? null,
      });
    }
    result.set(id, computeMembershipState(entries));
  }
  return result;
}

function isPreferredKey(id: string, candidate: string, current: string): boolean {
  if (current === id) return false;
  return candidate === id || candidate < current;
}
