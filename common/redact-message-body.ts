/**
 * Body redaction shared by retention and erasure (architecture.md §14, ADR 0010), in the lake and in
 * the collector's outbox. Pure functions over the stored JSON (the normalized Baileys item).
 *
 * What stays: everything outside the message content (key with ids and participants, timestamps, stub
 * type and parameters), and inside it the shape: each content key (`conversation`, `imageMessage`,
 * `reactionMessage`, `protocolMessage`, … = the message kind) and the structural fields engagement
 * reads (reply target `contextInfo.stanzaId`/`participant`, reaction/revoke/edit target `key`, `type`,
 * mentions, durations and sizes). Every other string, number and binary inside the content goes.
 */

/** Event types whose items carry message content; `export.message` is a message read from a chat export (ADR 0023). */
export const MESSAGE_BODY_TYPES: readonly string[] = ['messages.upsert', 'messages.update', 'export.message'];

/** Marker added to a redacted content object, so readers can tell "redacted" from "empty". */
export const REDACTED_MARKER = '_redacted';

// Subtrees kept whole: message keys hold ids and participant JIDs only.
const KEPT_SUBTREES = new Set(['key']);
// Scalars (or scalar arrays) kept wherever they appear in the content: ids, JIDs, enums, sizes, times.
const KEPT_FIELDS = new Set([
  'stanzaId',
  'participant',
  'remoteJid',
  'mentionedJid',
  'type',
  'editType',
  'isForwarded',
  'forwardingScore',
  'senderTimestampMs',
  'timestampMs',
  'mimetype',
  'seconds',
  'fileLength',
  'ephemeralExpiration',
]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function redactContent(value: Json): Json {
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'object').map(redactContent);
  if (value === null || typeof value !== 'object') return null;
  const result: { [key: string]: Json } = {};
  for (const [key, child] of Object.entries(value)) {
    if (KEPT_SUBTREES.has(key) || KEPT_FIELDS.has(key)) result[key] = child;
    else if (child !== null && typeof child === 'object') result[key] = redactContent(child);
  }
  return result;
}

/** Redacts one content object (`message`, `update.message`), keeping its kind; marks it redacted. */
function redactMessageObject(message: Json | undefined): Json | undefined {
  if (message === undefined || message === null || typeof message !== 'object' || Array.isArray(message))
    return message;
  const redacted = redactContent(message) as { [key: string]: Json };
  // A scalar content key (`conversation`) is the message kind itself: the key stays, its text goes.
  for (const key of Object.keys(message)) if (!(key in redacted)) redacted[key] = null;
  // A reaction's emoji is its kind, not text someone wrote, and '' means "removed": dropping it would
  // turn every reaction into a removal and change the reaction counts (ADR 0010).
  const reaction = message['reactionMessage'];
  const kept = redacted['reactionMessage'];
  if (reaction && typeof reaction === 'object' && !Array.isArray(reaction) && typeof reaction['text'] === 'string')
    if (kept && typeof kept === 'object' && !Array.isArray(kept)) kept['text'] = reaction['text'];
  return { ...redacted, [REDACTED_MARKER]: true };
}

/**
 * A quoted message (`contextInfo.quotedMessage`, the copy of the replied-to message a reply carries) redacted as
 * the message itself is (see module doc): its kind stays, its text goes. Anything not an object comes back as is.
 */
export function redactQuotedMessage(message: unknown): unknown {
  return redactMessageObject(message as Json | undefined);
}

/**
 * Returns `payload` with its message content redacted (see module doc); other types are returned as is.
 * @param type - the event type (`messages.upsert`, …).
 * @param payload - one stored item (object); not mutated.
 * @param options.dropSenderName - also remove `pushName`/`verifiedBizName` (erasure of the author).
 */
export function redactMessageBody(type: string, payload: unknown, options: { dropSenderName?: boolean } = {}): unknown {
  if (!MESSAGE_BODY_TYPES.includes(type) || payload === null || typeof payload !== 'object' || Array.isArray(payload))
    return payload;
  const item = { ...(payload as { [key: string]: Json }) };
  if ('message' in item) item['message'] = redactMessageObject(item['message']) ?? null;
  const update = item['update'];
  if (update !== null && typeof update === 'object' && !Array.isArray(update)) {
    const redacted: { [key: string]: Json } = { ...update };
    if ('message' in redacted) redacted['message'] = redactMessageObject(redacted['message']) ?? null;
    if ('pollUpdates' in redacted) redacted['pollUpdates'] = redactContent(redacted['pollUpdates'] ?? null);
    item['update'] = redacted;
  }
  if (options.dropSenderName) {
    delete item['pushName'];
    delete item['verifiedBizName'];
  }
  return item;
}
