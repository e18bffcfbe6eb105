import { isLidJid, type ParticipantRef } from '../projections/participant-ref.js';

/** Enough for the active senders of many groups; the set is cleared when full (a cheap bound, no LRU). */
const MAX_KNOWN = 50_000;

/**
 * LIDs named alone (no phone alias) whose `whatsapp_participants` row this process has committed
 * (issue #12 item 4, ADR 0006). Projecting such a reference again changes nothing: a LID's row is
 * never deleted (only `wa-lake rebuild` empties the table, and it replays every event that named the
 * LID), and its phone column follows the alias table, which a lone LID does not touch. So most
 * messages of known senders without `participantAlt` stay on the autocommit batch path. References
 * with an alias pair are never skipped: each one can move `last_seen_at` and with it a phone's owner.
 */
export class KnownLoneLids {
  private readonly known = new Set<string>();

  /** `refs` without the lone LIDs already known. */
  withoutKnown(refs: ParticipantRef[]): ParticipantRef[] {
    if (this.known.size === 0) return refs;
    return refs.filter((ref) => !(isLone(ref) && this.known.has(ref.participantId)));
  }

  /** Remembers the lone LIDs of references whose projection committed. */
  remember(refs: readonly ParticipantRef[]): void {
    for (const ref of refs) {
      if (!isLone(ref)) continue;
      if (this.known.size >= MAX_KNOWN) this.known.clear();
      this.known.add(ref.participantId);
    }
  }
}

const isLone = (ref: ParticipantRef): boolean => ref.phoneJid === null && isLidJid(ref.participantId);
