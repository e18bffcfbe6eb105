import { isJidGroup } from '../common/whatsapp-jid.js';
import { historySourceOf, splitHistoryPush, type EventSource, type HistoryItem } from './history-items.js';

/**
 * The keep/deny table of the edge filter (architecture.md §3): one entry per Baileys event, each with its
 * disposition, where one item's group JID lives, and the reason. Default-allow: an event not in the
 * table is kept per item when a group JID can be found in the usual fields (`defaultRule`).
 */

/** `keep`: store the items whose group JID ends in `@g.us`; `drop`: never stored; `never`: secret, not even logged. */
export type EventDisposition = 'keep' | 'drop' | 'never';

/** One row of the table. `items` splits the event data into items; `groupJid` reads one item's group JID. */
export interface EventKindRule {
  disposition: EventDisposition;
  /** Why this event is kept or dropped (shown in docs and reviews). */
  reason: string;
  /** Code counted in `PipelineOutcome.dropped` when the whole event is dropped. */
  dropCode?: string;
  /** Name of the group JID field, for documentation (`messages[i].key.remoteJid`). */
  groupJidField?: string;
  /** Items of one emitted event (a batch becomes many). Defaults to `asItems`. */
  items?: (data: unknown) => unknown[];
  /** Event type stored for the items when it differs from the Baileys event name. */
  itemType?: string;
  /** Items of different stored types and the parts dropped (a history push); replaces `items`, `itemType`, `droppedParts`. */
  typedItems?: (data: unknown) => { items: HistoryItem[]; dropped: Record<string, number> };
  /** Source of the event's items when it is not a live event (a history push, ADR 0016). */
  source?: (data: unknown) => EventSource;
  /** Parts of the event dropped before splitting, counted by reason code (e.g. history messages). */
  droppedParts?: (data: unknown) => Record<string, number>;
  /** Group JID of one item; `null` means "identity data, kept without a chat". */
  groupJid?: (item: unknown) => string | null | undefined;
  /** Items of a kept event that are still never stored (checked after the group JID), with their reason. */
  itemDrop?: { dropCode: string; reason: string; matches: (item: unknown) => boolean };
}

/** Reads `obj[a][b]…` on unknown data without throwing. */
export function readPath(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** An array stays an array of items; a single object is one item; anything else is no item. */
export const asItems = (data: unknown): unknown[] => (Array.isArray(data) ? data : data == null ? [] : [data]);
const keyRemoteJid = (item: unknown): string | undefined => asString(readPath(item, 'key', 'remoteJid'));
const idField = (item: unknown): string | undefined => asString(readPath(item, 'id'));

const drop = (reason: string, dropCode: string): EventKindRule => ({ disposition: 'drop', reason, dropCode });

/**
 * A `messages.update` item that only reports the delivery status (`update.status`: server ack, delivered,
 * read, error) of a message this account sent (`key.fromMe`). Its ACK goes to the message's send workflow by
 * signal (collector/send/ack-router.ts); an edit or revoke of an own message carries more than `status`.
 */
export function isOwnMessageStatusUpdate(item: unknown): boolean {
  if (readPath(item, 'key', 'fromMe') !== true) return false;
  const update = readPath(item, 'update');
  if (update === null || typeof update !== 'object') return false;
  const fields = Object.entries(update).filter(([, value]) => value !== undefined && value !== null);
  return fields.length > 0 && fields.every(([name]) => name === 'status');
}

/** The table (architecture.md §3). Keys are Baileys 7 event names plus the synthetic `groups.metadata`. */
export const EVENT_KINDS: Readonly<Record<string, EventKindRule>> = {
  'messages.upsert': {
    disposition: 'keep',
    reason: 'group messages and stubs; notify and append alike (offline backlog arrives as append)',
    groupJidField: 'messages[i].key.remoteJid',
    items: (data) => asItems(readPath(data, 'messages')),
    groupJid: keyRemoteJid,
  },
  'messages.update': {
    disposition: 'keep',
    reason: 'edits, revokes, poll updates of group messages',
    groupJidField: '[i].key.remoteJid',
    groupJid: keyRemoteJid,
    itemDrop: {
      dropCode: 'own_message_ack',
      reason: 'ACKs of messages this account sent go to their send workflow by signal, never to the lake',
      matches: isOwnMessageStatusUpdate,
    },
  },
  'messages.reaction': {
    disposition: 'keep',
    reason: 'reactions to group messages, one item per reaction',
    groupJidField: '[i].key.remoteJid',
    groupJid: keyRemoteJid,
  },
  'messages.delete': {
    disposition: 'keep',
    reason: 'deletions; `{keys}` gives one item per key, `{jid, all}` one item',
    groupJidField: 'keys[i].remoteJid / jid',
    items: (data) => {
      const keys = readPath(data, 'keys');
      return Array.isArray(keys) ? keys.map((key: unknown) => ({ keys: [key] })) : asItems(data);
    },
    groupJid: (item) => asString(readPath(item, 'keys', '0', 'remoteJid')) ?? asString(readPath(item, 'jid')),
  },
  'group-participants.update': {
    disposition: 'keep',
    reason: 'membership changes (hint; stub is authoritative)',
    groupJidField: 'id',
    groupJid: idField,
  },
  'groups.update': {
    disposition: 'keep',
    reason: 'group setting changes (hint; stub is authoritative)',
    groupJidField: 'id',
    groupJid: idField,
  },
  'groups.upsert': { disposition: 'keep', reason: 'groups joined or created', groupJidField: 'id', groupJid: idField },
  'group.join-request': {
    disposition: 'keep',
    reason: 'join requests (membership approval flow)',
    groupJidField: 'id',
    groupJid: idField,
  },
  'group.member-tag.update': {
    disposition: 'keep',
    reason: 'member labels in a group; the group JID is `groupId`, not `id`',
    groupJidField: 'groupId',
    groupJid: (item) => asString(readPath(item, 'groupId')),
  },
  call: {
    disposition: 'keep',
    reason: 'group call offers; one-to-one calls have no group JID and are dropped per item',
    groupJidField: 'groupJid',
    groupJid: (item) => asString(readPath(item, 'groupJid')),
  },
  'groups.metadata': {
    disposition: 'keep',
    reason: 'synthetic full snapshot per group on every open',
    groupJidField: 'id',
    groupJid: idField,
  },
  'lid-mapping.update': {
    disposition: 'keep',
    reason: 'LID to phone-number identity data; no chat, so chat_jid is null',
    groupJid: () => null,
  },
  'messaging-history.set': {
    disposition: 'keep',
    reason:
      'group messages, stubs and reactions of the push are kept as their live copies (ADR 0016); its lidPnMappings as lid-mapping.update identity data; messages outside groups are dropped',
    groupJidField: 'messages[i].key.remoteJid',
    typedItems: (data) => {
      const { items, outsideGroups } = splitHistoryPush(data);
      return { items, dropped: { history_messages: outsideGroups } };
    },
    source: historySourceOf,
    groupJid: (item) => keyRemoteJid(item) ?? null,
  },
  'collector.session': {
    disposition: 'keep',
    reason: "the collector's own session open/close, the lake's record of when it observed (ADR 0016)",
    groupJid: () => null,
  },
  'collector.heartbeat': {
    disposition: 'keep',
    reason: "the collector's periodic beat while its session is open (coverage, ADR 0016)",
    groupJid: () => null,
  },
  'collector.backfill': {
    disposition: 'keep',
    reason: 'a history backfill of a group finished: the span it filled counts as observed (ADR 0016)',
    groupJidField: 'group_jid',
    groupJid: (item) => asString(readPath(item, 'group_jid')),
  },
  'presence.update': drop(
    'typing/online firehose; its `id` is a group JID but it carries no lake data',
    'presence_firehose'
  ),
  'message-receipt.update': drop('per-reader receipts: high volume, personal reading behaviour', 'receipts'),
  'messages.media-update': drop('media re-upload plumbing (keys and IVs), not content', 'media_plumbing'),
  'message-capping.update': drop('account messaging limits, not group data', 'account_state'),
  'messaging-history.status': drop('history sync progress, not data', 'account_state'),
  'connection.update': drop('session state; handled by the session, not stored', 'connection_state'),
  'settings.update': drop('account settings, not group data', 'account_state'),
  'chats.lock': drop('account chat lock, not group data', 'account_state'),
  'creds.update': {
    disposition: 'never',
    reason: 'key material: must never leave the host, not even in logs',
    dropCode: 'key_material',
  },
};

/** Prefix rules for families of events (architecture.md §3: `chats.*`, `contacts.*`, …). */
export const EVENT_PREFIX_KINDS: ReadonlyArray<readonly [prefix: string, rule: EventKindRule]> = [
  ['chats.', drop('chat list of the account (includes DMs), not group data', 'chat_list')],
  ['contacts.', drop('address book of the account: personal data outside groups', 'contacts')],
  ['messaging-history.', drop('history sync plumbing', 'account_state')],
  ['blocklist.', drop('account block list: personal data', 'account_state')],
  ['labels.', drop('business labels of the account', 'account_state')],
  ['newsletter', drop('channels are never collected', 'newsletter')],
];

/** Default-allow rule for an event name Baileys adds later: keep items that carry a group JID. */
export const defaultRule: EventKindRule = {
  disposition: 'keep',
  reason: 'unknown event: default-allow, kept per item when a group JID is found',
  groupJid: (item) =>
    [
      readPath(item, 'key', 'remoteJid'),
      readPath(item, 'groupJid'),
      readPath(item, 'groupId'),
      readPath(item, 'id'),
      readPath(item, 'jid'),
    ]
      .map(asString)
      .find((jid) => isJidGroup(jid)),
};

/** Looks up the rule of an event name: exact entry, then prefix family, then the default-allow rule. */
export function ruleForEvent(eventName: string): EventKindRule {
  return (
    EVENT_KINDS[eventName] ?? EVENT_PREFIX_KINDS.find(([prefix]) => eventName.startsWith(prefix))?.[1] ?? defaultRule
  );
}
