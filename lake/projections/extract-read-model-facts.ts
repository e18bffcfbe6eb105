import type { JsonValue } from '../../common/json-value.js';
import { isJidGroup } from '../../common/whatsapp-jid.js';
import { toEpochMs } from './occurred-at.js';
import type { ProjectionEvent } from './extract-projection-facts.js';
import {
  asObject,
  asString,
  contextInfoOf,
  kindOf,
  PROTOCOL_MESSAGE_EDIT,
  PROTOCOL_REVOKE,
  unwrapContent,
  type MessageKind,
} from './message-content.js';
import { lidFirstId } from './participant-ref.js';

/**
 * Rank of a record: the row of an id keeps the record with the greatest (rank, event time, event id)
 * (an undecryptable placeholder followed by the real message with the same id is one row
 * with the real kind). `merged revoke` outranks the revoke message that shares its id (architecture.md §4).
 */
export const RECORD_RANK = { undecryptable: 1, content: 2, mergedRevoke: 3 } as const;

/** What one event says about the message with its own id (`whatsapp_messages`). */
export interface MessageRecordFact {
  chatJid: string;
  messageId: string;
  kind: MessageKind;
  rank: number;
  /** LID-first sender key (a phone JID only when the event names no LID); null when unknown (own messages). */
  senderId: string | null;
  sentAt: Date;
  replyToId: string | null;
  mentionCount: number;
}

/** An edit of `targetId`; `editedAtMs` (ms) identifies it: Baileys reports each edit twice (upsert and update). */
export interface MessageEditFact {
  chatJid: string;
  targetId: string;
  editedAtMs: number;
}

/**
 * A revoke (delete for everyone) of `targetId` at `deletedAt`. A revoke protocol message also says its own id
 * (`revokeId`) and the target's LID-first author (`targetSenderId`): Baileys' buffer can merge the revoke into
 * its target, leaving only an item under the revoke's id, which these two re-attribute (ADR 0019).
 */
export interface MessageRevokeFact {
  chatJid: string;
  targetId: string;
  deletedAt: Date;
  revokeId?: string | null;
  targetSenderId?: string | null;
}

/** The current reaction of `reactorId` on `targetId`; empty `text` = removed. Latest by `reactedAt` wins. */
export interface MessageReactionFact {
  chatJid: string;
  targetId: string;
  reactorId: string;
  text: string;
  reactedAt: Date;
}

/** Everything the message read model learns from one event (pure data). */
export interface ReadModelFacts {
  records: MessageRecordFact[];
  edits: MessageEditFact[];
  revokes: MessageRevokeFact[];
  reactions: MessageReactionFact[];
}

const STUB_REVOKE = 1;
const STUB_CIPHERTEXT = 2;

/** True when `facts` has nothing to write (most non-message events). */
export function isEmptyReadModelFacts(facts: ReadModelFacts): boolean {
  return facts.records.length + facts.edits.length + facts.revokes.length + facts.reactions.length === 0;
}

/**
 * Reads the message read-model facts of one event (architecture.md §13): group messages from
 * `messages.upsert`, edits and revokes from protocol messages, `messages.update` and Baileys' merged
 * revoke stubs, reactions from `messages.reaction` and reaction messages. Group-change stubs, poll
 * votes, reactions, edits and revokes never become messages of their own. Non-group chats yield nothing.
 */
export function extractReadModelFacts(
  event: Pick<ProjectionEvent, 'type' | 'payload' | 'effectiveAt' | 'source' | 'accountJids'>
): ReadModelFacts {
  const facts: ReadModelFacts = { records: [], edits: [], revokes: [], reactions: [] };
  const payload = asObject(event.payload);
  if (!payload) return facts;
  const isHistory = event.source === 'history' || event.source === 'on_demand';
  const [first, second] = event.accountJids ?? [];
  const account = first === undefined ? null : lidFirstId(first, second);
  if (event.type === 'messages.upsert') readUpsert(payload, event.effectiveAt, facts, isHistory, account);
  else if (event.type === 'messages.update') readUpdate(payload, event.effectiveAt, facts);
  else if (event.type === 'messages.reaction') readReactionEvent(payload, event.effectiveAt, facts, account);
  return facts;
}

type JsonObject = { [key: string]: JsonValue };

/**
 * The group JID, id and LID-first participant of a message key; null outside groups. A key the linked account
 * wrote (`fromMe`, no `participant`: its messages, from the send API or the phone, and its reactions) names the
 * account (ADR 0019): the item's top-level `participant` (Baileys sets the account's own JID there on
 * its messages), else the account JID the collector sent with the item.
 */
function readKey(
  raw: JsonValue | undefined,
  account: string | null,
  ownParticipant: JsonValue | undefined = undefined
): { chatJid: string; id: string; participant: string | null } | null {
  const key = asObject(raw);
  const chatJid = asString(key?.['remoteJid']);
  const id = asString(key?.['id']);
  if (!key || !chatJid || !isJidGroup(chatJid) || !id) return null;
  const participant = asString(key['participant']);
  if (participant) return { chatJid, id, participant: lidFirstId(participant, key['participantAlt']) };
  if (key['fromMe'] !== true) return { chatJid, id, participant: null };
  const own = asString(ownParticipant);
  return { chatJid, id, participant: own ? lidFirstId(own, undefined) : account };
}

/** Epoch ms of a millisecond field (number, decimal string or Long), or null. */
function millisOf(value: JsonValue | undefined): number | null {
  return value === undefined || value === null ? null : toEpochMs(value, 'milliseconds');
}

function readUpsert(
  payload: JsonObject,
  at: Date,
  facts: ReadModelFacts,
  isHistory: boolean,
  account: string | null
): void {
  const key = readKey(payload['key'], account, payload['participant']);
  if (!key) return;
  const message = asObject(payload['message']);
  if (!message) {
    const stubType = Number(payload['messageStubType'] ?? Number.NaN);
    if (stubType !== STUB_REVOKE && asObject(payload['key'])?.['isViewOnce'] === true) {
      // A view-once photo or video on a linked device: a placeholder without content (ADR 0019). It is
      // the message; its content, should it arrive under the same id, outranks it.
      facts.records.push(recordOf(key, at, 'view_once', RECORD_RANK.undecryptable, null, 0));
    } else if (stubType === STUB_CIPHERTEXT) {
      facts.records.push(recordOf(key, at, 'undecryptable', RECORD_RANK.undecryptable, null, 0));
    } else if (stubType === STUB_REVOKE) {
      // Live, Baileys' buffer merged a revoke into the message it deletes: the item is that message, deleted.
      // In history the phone keeps a deleted message as this stub: the content the lake may hold from live
      // wins, as over a placeholder, so a history copy changes no reply or mention (ADR 0016).
      const rank = isHistory ? RECORD_RANK.undecryptable : RECORD_RANK.mergedRevoke;
      facts.records.push(recordOf(key, at, 'revoked', rank, null, 0));
      const revokedAtMs = toEpochMs(payload['revokeMessageTimestamp'] ?? null, 'seconds');
      facts.revokes.push({
        chatJid: key.chatJid,
        targetId: key.id,
        deletedAt: revokedAtMs ? new Date(revokedAtMs) : at,
      });
    }
    // Other stubs (group changes, …) are not messages.
    return;
  }
  const unwrapped = unwrapContent(message);
  const context = contextInfoOf(unwrapped.content);
  const mentions = context?.['mentionedJid'];
  facts.records.push(
    recordOf(
      key,
      at,
      kindOf(unwrapped),
      RECORD_RANK.content,
      asString(context?.['stanzaId']),
      Array.isArray(mentions) ? mentions.length : 0
    )
  );
  readEmbeddedActions(unwrapped.content, key, at, facts);
}

// One object literal of one shape: this runs for every stored message on the ingest API's thread.
function recordOf(
  key: { chatJid: string; id: string; participant: string | null },
  sentAt: Date,
  kind: MessageKind,
  rank: number,
  replyToId: string | null,
  mentionCount: number
): MessageRecordFact {
  return {
    chatJid: key.chatJid,
    messageId: key.id,
    kind,
    rank,
    senderId: key.participant,
    sentAt,
    replyToId,
    mentionCount,
  };
}

/** Protocol revokes and edits, encrypted edits and reaction messages carried by an upsert. */
function readEmbeddedActions(
  content: JsonObject,
  key: { chatJid: string; id: string; participant: string | null },
  at: Date,
  facts: ReadModelFacts
): void {
  const protocol = asObject(content['protocolMessage']);
  if (protocol) {
    const targetKey = asObject(protocol['key']);
    const target = asString(targetKey?.['id']);
    const type = Number(protocol['type'] ?? Number.NaN);
    if (target && type === PROTOCOL_REVOKE) {
      // The author of the deleted message; a key without participant is the revoker's own message.
      const author = asString(targetKey?.['participant']);
      facts.revokes.push({
        chatJid: key.chatJid,
        targetId: target,
        deletedAt: at,
        revokeId: key.id,
        targetSenderId: author ? lidFirstId(author, targetKey?.['participantAlt']) : key.participant,
      });
    }
    if (target && type === PROTOCOL_MESSAGE_EDIT) {
      const editedAtMs = millisOf(protocol['timestampMs']) ?? at.getTime();
      facts.edits.push({ chatJid: key.chatJid, targetId: target, editedAtMs: editedAtMs - (editedAtMs % 1000) });
    }
    return;
  }
  const secret = asObject(content['secretEncryptedMessage']);
  const secretTarget = asString(asObject(secret?.['targetMessageKey'])?.['id']);
  if (secretTarget) {
    facts.edits.push({
      chatJid: key.chatJid,
      targetId: secretTarget,
      editedAtMs: at.getTime() - (at.getTime() % 1000),
    });
    return;
  }
  const reaction = asObject(content['reactionMessage']);
  const reactionTarget = asString(asObject(reaction?.['key'])?.['id']);
  if (reaction && reactionTarget && key.participant) {
    const reactedAt = millisOf(reaction['senderTimestampMs']);
    facts.reactions.push({
      chatJid: key.chatJid,
      targetId: reactionTarget,
      reactorId: key.participant,
      text: typeof reaction['text'] === 'string' ? reaction['text'] : '',
      reactedAt: reactedAt === null ? at : new Date(reactedAt),
    });
  }
}

function readUpdate(payload: JsonObject, at: Date, facts: ReadModelFacts): void {
  const key = readKey(payload['key'], null);
  const update = asObject(payload['update']);
  if (!key || !update) return;
  if (Number(update['messageStubType'] ?? Number.NaN) === STUB_REVOKE && update['message'] === null) {
    facts.revokes.push({ chatJid: key.chatJid, targetId: key.id, deletedAt: at });
    return;
  }
  const edited = asObject(asObject(update['message'])?.['editedMessage']);
  if (edited) {
    // Baileys sets the update's time from the edit's `timestampMs`, floored to seconds.
    const raw = update['messageTimestamp'];
    const ms = raw === undefined || raw === null ? null : toEpochMs(raw, 'seconds');
    const editedAtMs = ms ?? at.getTime() - (at.getTime() % 1000);
    facts.edits.push({ chatJid: key.chatJid, targetId: key.id, editedAtMs });
  }
}

function readReactionEvent(payload: JsonObject, at: Date, facts: ReadModelFacts, account: string | null): void {
  const target = readKey(payload['key'], account);
  const reaction = asObject(payload['reaction']);
  const reactor = readKey(reaction?.['key'], account);
  if (!target || !reaction || !reactor?.participant) return;
  const reactedAt = millisOf(reaction['senderTimestampMs']);
  facts.reactions.push({
    chatJid: target.chatJid,
    targetId: target.id,
    reactorId: reactor.participant,
    text: typeof reaction['text'] === 'string' ? reaction['text'] : '',
    reactedAt: reactedAt === null ? at : new Date(reactedAt),
  });
}
