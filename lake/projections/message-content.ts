import type { JsonValue } from '../../common/json-value.js';
import { REDACTED_MARKER } from '../../common/redact-message-body.js';

type JsonObject = { [key: string]: JsonValue };

/** `ProtocolMessage.Type` numbers (WAProto, Baileys 7). */
export const PROTOCOL_REVOKE = 0;
export const PROTOCOL_MESSAGE_EDIT = 14;

export const asObject = (value: JsonValue | undefined): JsonObject | null =>
  value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value) ? value : null;
export const asString = (value: JsonValue | undefined): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;

/**
 * Kinds of `whatsapp_messages` rows that are group messages. `revoked` is a
 * message Baileys' buffer merged with its revoke, so its content is gone; `undecryptable` is a
 * CIPHERTEXT placeholder that was never followed by the real message.
 */
export const MESSAGE_KINDS = [
  'text',
  'media',
  'sticker',
  'poll',
  'location',
  'contact',
  'view_once',
  'event',
  'other',
  'undecryptable',
  'revoked',
] as const;
/** Kinds that mark an id as *not* a message (an edit, a revoke, a reaction, a vote, a protocol message). */
export const NON_MESSAGE_KINDS = ['edit', 'revoke', 'reaction', 'poll_vote', 'protocol'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number] | (typeof NON_MESSAGE_KINDS)[number];

/** Wrappers whose inner `message` is the real content (Baileys' `getFutureProofMessage`). */
const WRAPPERS = ['ephemeralMessage', 'documentWithCaptionMessage', 'editedMessage', 'deviceSentMessage'];
const VIEW_ONCE_WRAPPERS = ['viewOnceMessage', 'viewOnceMessageV2', 'viewOnceMessageV2Extension'];

/** Content field → kind, first match wins (field names of WAProto `Message`, Baileys 7). */
const KIND_BY_FIELD: readonly (readonly [string, MessageKind])[] = [
  ['conversation', 'text'],
  ['extendedTextMessage', 'text'],
  ['imageMessage', 'media'],
  ['videoMessage', 'media'],
  ['audioMessage', 'media'],
  ['documentMessage', 'media'],
  ['ptvMessage', 'media'],
  ['albumMessage', 'media'],
  ['stickerMessage', 'sticker'],
  ['lottieStickerMessage', 'sticker'],
  ['pollCreationMessage', 'poll'],
  ['pollCreationMessageV2', 'poll'],
  ['pollCreationMessageV3', 'poll'],
  ['pollCreationMessageV4', 'poll'],
  ['pollCreationMessageV5', 'poll'],
  ['locationMessage', 'location'],
  ['liveLocationMessage', 'location'],
  ['contactMessage', 'contact'],
  ['contactsArrayMessage', 'contact'],
  // A linked device never receives view-once content: WhatsApp sends this placeholder instead.
  ['placeholderMessage', 'view_once'],
  ['eventMessage', 'event'],
  ['reactionMessage', 'reaction'],
  ['encReactionMessage', 'reaction'],
  ['pollUpdateMessage', 'poll_vote'],
  ['encEventResponseMessage', 'poll_vote'],
  ['secretEncryptedMessage', 'edit'],
  ['keepInChatMessage', 'protocol'],
  ['pinInChatMessage', 'protocol'],
];
/** Fields that carry no content of their own (they ride along with a real message or alone). */
const CARRIER_FIELDS = new Set(['messageContextInfo', 'senderKeyDistributionMessage']);

/** The content of a message after unwrapping, and whether a view-once wrapper was crossed. */
export interface UnwrappedContent {
  content: JsonObject;
  isViewOnce: boolean;
}

/** Unwraps ephemeral / view-once / edited / device-sent wrappers (at most 5 levels, like Baileys). */
export function unwrapContent(message: JsonObject): UnwrappedContent {
  let content = message;
  let isViewOnce = false;
  for (let depth = 0; depth < 5; depth += 1) {
    const viewOnce = firstObjectField(content, VIEW_ONCE_WRAPPERS);
    const wrapper = viewOnce ?? firstObjectField(content, WRAPPERS);
    const inner = asObject(wrapper?.['message']);
    if (!inner) break;
    if (viewOnce) isViewOnce = true;
    content = inner;
  }
  return { content, isViewOnce };
}

// A plain loop: this runs for every stored message on the ingest API's thread (ADR 0013).
function firstObjectField(content: JsonObject, fields: readonly string[]): JsonObject | null {
  for (const field of fields) {
    const inner = asObject(content[field]);
    if (inner) return inner;
  }
  return null;
}

/** The kind of unwrapped content; `protocol` for protocol messages and carrier-only content. */
export function kindOf({ content, isViewOnce }: UnwrappedContent): MessageKind {
  const protocol = asObject(content['protocolMessage']);
  if (protocol) {
    const type = Number(protocol['type'] ?? Number.NaN);
    return type === PROTOCOL_REVOKE ? 'revoke' : type === PROTOCOL_MESSAGE_EDIT ? 'edit' : 'protocol';
  }
  // Retention redacts `conversation: "…"` to `conversation: null` and marks the content: the key still
  // names the kind (ADR 0010), so engagement counts stay the same after a rebuild.
  const isRedacted = content[REDACTED_MARKER] === true;
  const match = firstKindField(content, isRedacted);
  if (!match) {
    const hasContent = Object.keys(content).some((field) => !CARRIER_FIELDS.has(field) && field !== REDACTED_MARKER);
    return hasContent ? 'other' : 'protocol';
  }
  const [field, kind] = match;
  const isMedia = kind === 'media' && asObject(content[field])?.['viewOnce'] === true;
  return isViewOnce || isMedia ? 'view_once' : kind;
}

function firstKindField(content: JsonObject, isRedacted: boolean): readonly [string, MessageKind] | undefined {
  for (const entry of KIND_BY_FIELD) {
    const value = content[entry[0]];
    if (value !== undefined && (value !== null || isRedacted)) return entry;
  }
  return undefined;
}

/** The `contextInfo` of the content's first object field (where WAProto keeps replies and mentions). */
export function contextInfoOf(content: JsonObject): JsonObject | null {
  for (const field in content) {
    const info = asObject(asObject(content[field])?.['contextInfo']);
    if (info) return info;
  }
  return null;
}

const MESSAGE_KIND_SET: ReadonlySet<string> = new Set(MESSAGE_KINDS);
/** True for kinds that are group messages of their own (rows of the `whatsapp_messages` view). */
export function isMessageKind(kind: string): boolean {
  return MESSAGE_KIND_SET.has(kind);
}
