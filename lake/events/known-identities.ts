import { type ParticipantRef } from '../projections/participant-ref.js';
import { isLidUser } from '../../common/whatsapp-jid.js';

/** Enough for the active senders of many groups; the memory is cleared when full (a cheap bound, no LRU). */
const MAX_KNOWN = 50_000;

/**
 * Identities this process has committed, to leave out statements that would change nothing (ADR 0006), so
 * messages of known senders stay on the autocommit batch path:
 * - a lone LID (no phone alias) whose participant row committed: its phone column follows the alias table,
 *   which a lone LID does not touch;
 * - a LID↔phone pair stated at a time inside the span of times already committed for it: the alias
 *   row's `first_seen_at`…`last_seen_at` only widens (rebuild restores at least that span), so the
 *   upsert would leave it as it is, and no owner or participant row can change.
 * A pair stated outside its known span is never skipped: it moves `first_seen_at` or `last_seen_at`.
 * Only `forget` and `rebuild` delete these rows, and both bump the lake's identity generation: every statement
 * reports the generation it read ({@link KnownIdentities.observe}), and a caller whose skip relied on an older
 * one writes what it skipped (`EventsRepository`), so no cached entry outlives its rows (ADR 0019).
 */
export class KnownIdentities {
  /**
   * The lake's identity generation the entries hold for (`whatsapp_identity_generation`, ADR 0019):
   * `forget` and `rebuild` delete identity rows under a running API and bump it in the same transaction.
   * Null until a statement told it.
   */
  generation: number | null = null;
  private readonly loneLids = new Set<string>();
  /** `lid|phone` → committed span of event times (epoch ms). */
  private readonly pairs = new Map<string, { firstMs: number; lastMs: number }>();

  /**
   * Takes the generation a committed statement read: a new one (a `forget` or `rebuild` committed since) empties
   * the cache, since the rows it vouched for may be gone.
   */
  observe(generation: number): void {
    if (this.generation === generation) return;
    this.loneLids.clear();
    this.pairs.clear();
    this.generation = generation;
  }

  /** `refs` without those that are known at `atMs` (epoch ms). */
  withoutKnown(refs: ParticipantRef[], atMs: number): ParticipantRef[] {
    if (this.loneLids.size === 0 && this.pairs.size === 0) return refs;
    return refs.filter((ref) => !this.isKnown(ref, atMs));
  }

  /** Remembers references whose projection committed, stated at `atMs`. */
  remember(refs: readonly ParticipantRef[], atMs: number): void {
    if (this.loneLids.size + this.pairs.size >= MAX_KNOWN) {
      this.loneLids.clear();
      this.pairs.clear();
    }
    for (const ref of refs) {
      if (isLone(ref)) this.loneLids.add(ref.participantId);
      const key = pairKey(ref);
      if (key === null) continue;
      const span = this.pairs.get(key);
      this.pairs.set(key, {
        firstMs: Math.min(span?.firstMs ?? atMs, atMs),
        lastMs: Math.max(span?.lastMs ?? atMs, atMs),
      });
    }
  }

  private isKnown(ref: ParticipantRef, atMs: number): boolean {
    if (isLone(ref)) return this.loneLids.has(ref.participantId);
    const key = pairKey(ref);
    const span = key === null ? undefined : this.pairs.get(key);
    return span !== undefined && span.firstMs <= atMs && atMs <= span.lastMs;
  }
}

const isLone = (ref: ParticipantRef): boolean => ref.phoneJid === null && isLidUser(ref.participantId);
const pairKey = (ref: ParticipantRef): string | null =>
  ref.lid !== null && ref.phoneJid !== null && ref.participantId === ref.lid ? `${ref.lid}|${ref.phoneJid}` : null;
