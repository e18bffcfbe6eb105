import { isJidGroup } from '../common/whatsapp-jid.js';
import { ruleForEvent, asItems, readPath } from './event-kinds.js';
import type { EventSource } from './history-items.js';

/** One item that passed the filter: still raw (not normalized). */
export interface KeptItem {
  /** Event type stored in the lake (`lid-mapping.update` for history mappings). */
  type: string;
  /** The item's group JID (`…@g.us`), or null for identity data. */
  chatJid: string | null;
  /** The raw item as Baileys emitted it (one message, one reaction, one key …). */
  item: unknown;
  /** `notify` / `append` for `messages.upsert`. */
  upsertType?: string;
  /** `history` / `on_demand` for the items of a history push; absent for live events (ADR 0016). */
  source?: EventSource;
}

/** Per-item decisions for one emitted event. */
export interface FilterResult {
  kept: KeptItem[];
  /** Dropped items (or dropped parts, such as history messages) by reason code. */
  dropped: Record<string, number>;
  /** True for `creds.update`: the caller must not log or record anything about the event. */
  isSecret: boolean;
}

const NOT_GROUP = 'not_group';

function addDrop(dropped: Record<string, number>, reason: string, count: number): void {
  if (count > 0) dropped[reason] = (dropped[reason] ?? 0) + count;
}

/**
 * Splits one Baileys event into items and keeps each item whose group JID ends in `@g.us`
 * (Baileys' `isJidGroup`), per item and never per batch. DMs, `status@broadcast` and newsletters are
 * counted under `not_group` and nothing else about them is returned (architecture.md §3).
 *
 * @param eventName - the Baileys event name (or the synthetic `groups.metadata`).
 * @param data - the event data as emitted (object or array).
 * @returns kept items in emission order, and drop counts by reason code.
 */
export function filterEvent(eventName: string, data: unknown): FilterResult {
  const rule = ruleForEvent(eventName);
  const dropped: Record<string, number> = {};
  if (rule.disposition === 'never') return { kept: [], dropped: { [rule.dropCode ?? 'secret']: 1 }, isSecret: true };
  const typed = rule.typedItems?.(data);
  const items = typed ? typed.items.map((entry) => entry.item) : (rule.items ?? asItems)(data);
  if (rule.disposition === 'drop') {
    addDrop(dropped, rule.dropCode ?? 'denied', Math.max(items.length, 1));
    return { kept: [], dropped, isSecret: false };
  }
  for (const [reason, count] of Object.entries(typed?.dropped ?? rule.droppedParts?.(data) ?? {}))
    addDrop(dropped, reason, count);
  const upsertType = eventName === 'messages.upsert' ? readPath(data, 'type') : undefined;
  const source = rule.source?.(data);
  const kept: KeptItem[] = [];
  for (const [index, item] of items.entries()) {
    const type = typed?.items[index]?.type ?? rule.itemType ?? eventName;
    const chatJid = rule.groupJid?.(item);
    if (chatJid === null) {
      kept.push(source ? { type, chatJid: null, item, source } : { type, chatJid: null, item });
    } else if (chatJid !== undefined && isJidGroup(chatJid)) {
      if (rule.itemDrop?.matches(item)) {
        addDrop(dropped, rule.itemDrop.dropCode, 1);
        continue;
      }
      const keptItem: KeptItem = { type, chatJid, item };
      if (typeof upsertType === 'string') keptItem.upsertType = upsertType;
      if (source) keptItem.source = source;
      kept.push(keptItem);
    } else {
      addDrop(dropped, NOT_GROUP, 1);
    }
  }
  return { kept, dropped, isSecret: false };
}
