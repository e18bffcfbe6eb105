import type { MembershipRole } from './participant-ref.js';

/** One fact about one participant in one group: present (with a role, or null = unchanged) or absent. */
export interface MembershipEntry {
  /** Event time, epoch ms. */
  atMs: number;
  eventId: string;
  isPresent: boolean;
  role: MembershipRole | null;
}

/** The projected membership row. */
export interface MembershipState {
  role: MembershipRole;
  /** Start of the latest run of presence (epoch ms), null when never seen present. */
  joinedAtMs: number | null;
  /** Start of the current absence (epoch ms), null while present. */
  leftAtMs: number | null;
}

/** Total order of facts: event time, then event_id (DESIGN §9: "ties by event_id"). */
export function compareEntries(a: MembershipEntry, b: MembershipEntry): number {
  if (a.atMs !== b.atMs) return a.atMs - b.atMs;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

/**
 * Folds every fact known about one membership into its state. A pure function of the *set* of
 * entries (they are sorted first), so any order of arrival gives the same row (DESIGN §9):
 * re-entry clears `left_at`, a later absence sets it to the first absence of the final run, and role
 * changes update the role (the last stated role wins).
 *
 * @returns null when there are no entries.
 */
export function computeMembershipState(entries: readonly MembershipEntry[]): MembershipState | null {
  if (entries.length === 0) return null;
  let isPresent: boolean | null = null;
  let role: MembershipRole = 'member';
  let joinedAtMs: number | null = null;
  let leftAtMs: number | null = null;
  for (const entry of [...entries].sort(compareEntries)) {
    if (entry.isPresent) {
      if (isPresent !== true) {
        joinedAtMs = entry.atMs;
        leftAtMs = null;
      }
      if (entry.role) role = entry.role;
      isPresent = true;
    } else {
      if (isPresent !== false) leftAtMs = entry.atMs;
      isPresent = false;
    }
  }
  return { role, joinedAtMs, leftAtMs };
}
