import type { MembershipRole } from './participant-ref.js';

/** One fact about one participant in one group: present (with a role, or null = unchanged) or absent. */
export interface MembershipEntry {
  /** Event time, epoch ms. */
  atMs: number;
  eventId: string;
  isPresent: boolean;
  role: MembershipRole | null;
  /**
   * False for an untimed hint (`group-participants.update`: its time is only when it was captured);
   * absent or true for a timed fact (a stub with its own time, a snapshot). ADR 0007.
   */
  isTimed?: boolean;
}

/** The projected membership row. */
export interface MembershipState {
  role: MembershipRole;
  /** Start of the latest run of presence (epoch ms), null when never seen present. */
  joinedAtMs: number | null;
  /** Start of the current absence (epoch ms), null while present. */
  leftAtMs: number | null;
}

/**
 * Total order of facts (ADR 0007): every untimed hint before every timed fact, so a hint never
 * overrides a timed stub; then event time, then event_id (architecture.md §9: "ties by event_id").
 */
export function compareEntries(a: MembershipEntry, b: MembershipEntry): number {
  const rank = Number(a.isTimed !== false) - Number(b.isTimed !== false);
  if (rank !== 0) return rank;
  if (a.atMs !== b.atMs) return a.atMs - b.atMs;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

/**
 * Folds every fact known about one membership into its state. A pure function of the *set* of
 * entries (they are sorted by {@link compareEntries} first), so any order of arrival gives the same
 * row (architecture.md §9): re-entry clears `left_at`, a later absence sets it to the start of the final run
 * of absence, and role changes update the role (the last stated role wins). The start of a run is
 * its earliest event time: a hint ranked before a timed fact of the same run can be later in time.
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
      } else if (joinedAtMs !== null) joinedAtMs = Math.min(joinedAtMs, entry.atMs);
      if (entry.role) role = entry.role;
      isPresent = true;
    } else {
      if (isPresent !== false) leftAtMs = entry.atMs;
      else if (leftAtMs !== null) leftAtMs = Math.min(leftAtMs, entry.atMs);
      isPresent = false;
    }
  }
  return { role, joinedAtMs, leftAtMs };
}
