import type { IngestSource } from '../common/ingest-body.js';
import { isJidGroup } from '../common/whatsapp-jid.js';
import { proto } from './normalize/baileys-helpers.js';

/**
 * Where a lake row came from (ADR 0016): a live event, a history push WhatsApp sent on its own
 * (`messaging-history.set` of any other sync type), one the collector asked for (`ON_DEMAND`), or a
 * capture / trail replay. Not part of the `event_id`: the first stored copy's source is kept (ADR 0016).
 */
export type EventSource = IngestSource;

/** One typed item of a history push, as the live event that carries the same fact would hold it. */
export interface HistoryItem {
  type: 'messages.upsert' | 'messages.reaction' | 'lid-mapping.update';
  item: unknown;
}

/** What a history push holds for the lake, and how many of its messages were outside groups. */
export interface HistoryPushItems {
  items: HistoryItem[];
  /** Messages of chats that are no group (DMs, `status@broadcast`, newsletters): never stored. */
  outsideGroups: number;
}

type Obj = Record<string, unknown>;
const asObject = (value: unknown): Obj | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : null;
const asString = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** `syncType` ON_DEMAND (6 in rc14's `proto.HistorySync.HistorySyncType`) is the answer to `fetchMessageHistory`. */
export function historySourceOf(data: unknown): 'history' | 'on_demand' {
  return asObject(data)?.['syncType'] === proto.HistorySync.HistorySyncType.ON_DEMAND ? 'on_demand' : 'history';
}

/** Both directions of the push's own `lidPnMappings` (Baileys 7 `LIDMapping {lid, pn}`): each JID → its other form. */
export function otherFormsOf(data: unknown): Map<string, string> {
  const map = new Map<string, string>();
  const mappings = asObject(data)?.['lidPnMappings'];
  if (!Array.isArray(mappings)) return map;
  for (const mapping of mappings) {
    const lid = asString(asObject(mapping)?.['lid']);
    const pn = asString(asObject(mapping)?.['pn']);
    if (lid && pn) map.set(pn, lid).set(lid, pn);
  }
  return map;
}

/**
 * Completes the key of a history message (ADR 0016). WAProto's `MessageKey` has no
 * `participantAlt` (Baileys adds it to live keys from its LID mapping store), and history may name the sender
 * only in `WebMessageInfo.participant`. So: a missing `key.participant` becomes the message's own
 * `participant`, else `key.participantAlt`; then a missing `participantAlt` becomes the other form of the
 * participant that the push's own mapping gives (LID ↔ phone JID). The history copy then names the same
 * person with the same pair as its live copy (ADR 0004). Our own messages (`fromMe`) are returned as they
 * are. Never changes an `event_id`: neither field is part of a message's key, `*Alt` is never hashed (ADR 0003).
 */
export function withParticipant(message: Obj, otherForms: ReadonlyMap<string, string>): Obj {
  const key = asObject(message['key']);
  if (!key || key['fromMe'] === true) return message;
  const completed = completeKey(key, asString(message['participant']), otherForms);
  return completed === key ? message : { ...message, key: completed };
}

/** {@link withParticipant} on one key; `fallback` is a sender named outside the key. Returns `key` when complete. */
function completeKey(key: Obj, fallback: string | undefined, otherForms: ReadonlyMap<string, string>): Obj {
  const alt = asString(key['participantAlt']);
  const participant = asString(key['participant']) ?? fallback ?? alt;
  if (!participant) return key;
  const other = alt && alt !== participant ? alt : otherForms.get(participant);
  if (participant === key['participant'] && (other === undefined || other === alt)) return key;
  const completed: Obj = { ...key, participant };
  if (other !== undefined) completed['participantAlt'] = other;
  else delete completed['participantAlt'];
  return completed;
}

/**
 * The reactions a history message carries (`WebMessageInfo.reactions`, proto `Reaction {key, text,
 * senderTimestampMs}`) as the `messages.reaction` items Baileys emits live (`{key: target key, reaction:
 * {…reaction, key: reaction message key}}`), so both copies get one `event_id` (type · target id · reactor
 * · text, architecture.md §4).
 */
function reactionItems(message: Obj, otherForms: ReadonlyMap<string, string>): HistoryItem[] {
  const reactions = message['reactions'];
  if (!Array.isArray(reactions)) return [];
  const target = asObject(message['key']);
  const items: HistoryItem[] = [];
  for (const raw of reactions) {
    const reaction = asObject(raw);
    const key = asObject(reaction?.['key']);
    if (!reaction || !key) continue;
    // The read model reads the reactor from a group key, as Baileys' live reaction message key is.
    const grouped = asString(key['remoteJid']) ? key : { ...key, remoteJid: target?.['remoteJid'] };
    const reactionKey = grouped['fromMe'] === true ? grouped : completeKey(grouped, undefined, otherForms);
    items.push({ type: 'messages.reaction', item: { key: target, reaction: { ...reaction, key: reactionKey } } });
  }
  return items;
}

/**
 * Splits one `messaging-history.set` (Baileys 7.0.0-rc14: `{chats, contacts, messages, lidPnMappings?,
 * syncType?, progress?, isLatest?}`) into lake items (ADR 0016): each group message (content,
 * edits and revokes as protocol messages, revoke and group-change stubs) as a `messages.upsert` item
 * without `reactions` and `userReceipt` (a live copy has neither), each of its reactions as a
 * `messages.reaction` item, and each LID↔phone mapping as a `lid-mapping.update` item (ADR 0004).
 * Chats and contacts are the account's address book and stay out; messages outside groups are only counted.
 */
export function splitHistoryPush(data: unknown): HistoryPushItems {
  const push = asObject(data);
  const result: HistoryPushItems = { items: [], outsideGroups: 0 };
  if (!push) return result;
  const otherForms = otherFormsOf(push);
  const messages = Array.isArray(push['messages']) ? push['messages'] : [];
  for (const raw of messages) {
    const message = asObject(raw);
    const chatJid = asString(asObject(message?.['key'])?.['remoteJid']);
    if (!message || !chatJid || !isJidGroup(chatJid)) {
      result.outsideGroups += 1;
      continue;
    }
    const filled = withParticipant(message, otherForms);
    const upsert = { ...filled };
    // A live copy carries neither: reactions arrive as their own events, receipts are never kept (§3).
    delete upsert['reactions'];
    delete upsert['userReceipt'];
    result.items.push({ type: 'messages.upsert', item: upsert }, ...reactionItems(filled, otherForms));
  }
  const mappings = Array.isArray(push['lidPnMappings']) ? push['lidPnMappings'] : [];
  for (const mapping of mappings) result.items.push({ type: 'lid-mapping.update', item: mapping });
  return result;
}
