import type { Logger } from '../common/logger.js';
import { filterEvent } from './edge-filter.js';
import { DEFAULT_BODY_LIMITS, prepareItem, type BodyLimits } from './prepare-item.js';
import type { OutboxDeadInput, OutboxEventInput, OutboxStore } from './outbox-store.js';

/** What one `handle` call did, item by item (counts), for logs, replay progress and tests. */
export interface PipelineOutcome {
  /** Items seen (kept + dropped). */
  items: number;
  kept: number;
  /** Dropped items by reason code (see `EVENT_KINDS`). */
  dropped: Record<string, number>;
  /** Rows newly inserted as `pending`. */
  inserted: number;
  /**
   * Kept items whose `event_id` was already in the outbox in any state, `dead` included (or twice in
   * this event): no row written. `kept = inserted + duplicates + dead`.
   */
  duplicates: number;
  /** `dead` rows written (items unserializable or too large whose `event_id` was not yet in the outbox). */
  dead: number;
  /** `event_id` of every kept item (pending or dead), in order. */
  eventIds: string[];
}

/** Dependencies of the pipeline; `limits` default to architecture.md §5, `now` to `Date.now`. */
export interface EventPipelineDeps {
  outbox: OutboxStore;
  logger: Logger;
  /** The collector's own JID (from the session), used as reactor of its own reactions; null before login. */
  getSelfJid: () => string | null;
  /** The account's LID (from the session), sent as `account_lid` beside `account_jid` (ADR 0019). */
  getSelfLid?: () => string | null;
  limits?: BodyLimits;
  now?: () => number;
  /**
   * Also send the first collector's id of items whose key inputs differ from its rules (trail replay,
   *): the lake then recognises the rows that collector stored.
   */
  withFirstCollectorEventIds?: boolean;
  /**
   * Items a history push carried say `history` / `on_demand`, in a replay too (a capture keeps the event that
   * carried them); the others say `live` (default) or `replay` (ADR 0016).
   */
  mode?: 'live' | 'replay';
}

/**
 * capture → outbox: edge filter → normalize → `event_id` → size limits → one SQLite transaction,
 * per item and fully synchronous, so the event is durable before the Baileys callback returns
 * (architecture.md §1, §3–§5). Also used by capture replay, so live and replayed events get the same keys.
 */
export class EventPipeline {
  private readonly logger: Logger;
  private readonly limits: BodyLimits;
  private readonly now: () => number;

  constructor(private readonly deps: EventPipelineDeps) {
    this.logger = deps.logger.child({ component: 'event-pipeline' });
    this.limits = deps.limits ?? DEFAULT_BODY_LIMITS;
    this.now = deps.now ?? Date.now;
  }

  /**
   * One Baileys event (name + data as emitted, possibly a batch) → per-item decisions, one outbox
   * transaction. `creds.update` returns at once and is never logged.
   * @param capturedAt - when the collector received the event (becomes `captured_at`).
   * @throws OutboxStore errors (`SqliteError`) when the outbox cannot be written: the caller must
   *   not acknowledge the event (the process should stop rather than lose it).
   */
  handle(eventName: string, data: unknown, capturedAt: Date): PipelineOutcome {
    const filtered = filterEvent(eventName, data);
    const droppedCount = Object.values(filtered.dropped).reduce((sum, n) => sum + n, 0);
    const outcome: PipelineOutcome = {
      items: filtered.kept.length + droppedCount,
      kept: filtered.kept.length,
      dropped: filtered.dropped,
      inserted: 0,
      duplicates: 0,
      dead: 0,
      eventIds: [],
    };
    if (filtered.isSecret || filtered.kept.length === 0) return outcome;
    const capturedAtIso = capturedAt.toISOString();
    const selfJid = this.deps.getSelfJid();
    const selfLid = this.deps.getSelfLid?.() ?? null;
    const pending: OutboxEventInput[] = [];
    const dead: OutboxDeadInput[] = [];
    for (const kept of filtered.kept) {
      const prepared = prepareItem(kept, capturedAtIso, selfJid, this.limits, {
        withFirstCollectorEventId: this.deps.withFirstCollectorEventIds === true,
        selfLid,
        source: kept.source ?? (this.deps.mode === 'replay' ? 'replay' : 'live'),
      });
      outcome.eventIds.push(prepared.row.eventId);
      if (prepared.kind === 'pending') pending.push(prepared.row);
      else dead.push(prepared.row);
    }
    const result = this.deps.outbox.enqueueWithDead(pending, dead, this.now());
    outcome.inserted = result.inserted - result.deadInserted;
    outcome.duplicates = result.ignored;
    // Count the rows written, not the items prepared as dead: a repeated over-size item is already
    // counted in `ignored`, and counting it as dead too would make `wa-lake replay`'s kept line not add up
    // (new + already there + dead = kept).
    outcome.dead = result.deadInserted;
    for (const row of dead)
      this.logger.warn({ eventId: row.eventId, type: row.type, reason: row.reason }, 'item quarantined as dead');
    this.logger.debug(
      {
        event: eventName,
        items: outcome.items,
        kept: outcome.kept,
        inserted: outcome.inserted,
        duplicates: outcome.duplicates,
      },
      'event handled'
    );
    return outcome;
  }
}
