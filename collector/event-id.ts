import * as crypto from 'node:crypto';
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';
import { jidNormalizedUser } from '../common/whatsapp-jid.js';
import { canonicalJson } from './canonical-json.js';
import { isFirstCollectorVolatileField, isVolatileField } from './volatile-fields.js';

/** UUIDv5 namespace of the first collector; keeping it keeps the lake free of duplicates (architecture.md §4). */
export const EVENT_ID_NAMESPACE = 'b5f8c1e2-3a4d-4f6b-9c7e-1d2a3b4c5d6e';

/** Input of `deriveEventId`: one kept item, already normalized (the same value that is POSTed). */
export interface EventIdInput {
  /** Stored event type, e.g. `messages.upsert`. */
  type: string;
  /** Group JID of the item, or null (identity data). */
  chatJid: string | null;
  /** The normalized item (`normalizeValue`). */
  item: JsonValue;
  /** The collector's own JID (any device form), for its own reactions; null before login. */
  selfJid: string | null;
}

/**
 * Keys left out of the hash: volatile fields, and empty arrays — protobufjs `decode` materializes
 * every repeated field as `[]` (live events) while `toJSON`/`toObject` leave them out (history, the
 * first collector's trail), so "empty" and "absent" must hash alike.
 */
const omitFromHash = (key: string, value: JsonValue): boolean =>
  (Array.isArray(value) && value.length === 0) || isVolatileField(key, value);
const omitFromFirstCollectorHash = (key: string, value: JsonValue): boolean =>
  (Array.isArray(value) && value.length === 0) || isFirstCollectorVolatileField(key, value);

/**
 * `hash(x)` of architecture.md §4: lower-case hex SHA-1 of the canonical JSON of a normalized value, with the
 * volatile fields (`VOLATILE_FIELDS`) and empty arrays left out at every depth.
 */
export function hashItem(value: JsonValue): string {
  return sha1(canonicalJson(value, omitFromHash), 'hex');
}

/** {@link hashItem} with the first collector's volatile fields (`*Pn`, `phoneNumber` hashed). */
function hashItemAsFirstCollector(value: JsonValue): string {
  return sha1(canonicalJson(value, omitFromFirstCollectorHash), 'hex');
}

/**
 * The `size` of a snapshot whose participant list is partial (shorter than `size`, architecture.md §9), else
 * null. `size` is volatile because a complete list implies it; a partial list does not, so two
 * partial snapshots that differ only in `size` are different events (ADR 0007).
 */
function partialSnapshotSize(item: JsonValue): number | null {
  if (!isJsonObject(item)) return null;
  const { participants, size } = item;
  if (!Array.isArray(participants) || participants.length === 0) return null;
  const count = typeof size === 'number' ? size : typeof size === 'string' ? Number(size) : Number.NaN;
  return participants.length < count ? count : null;
}

const field = (value: JsonValue | undefined, ...keys: string[]): JsonValue | undefined => {
  let current = value;
  for (const key of keys)
    current = isJsonObject(current) ? current[key] : Array.isArray(current) ? current[Number(key)] : undefined;
  return current;
};
const part = (value: JsonValue | undefined): string =>
  value == null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

function upsertParts(
  chatJid: string | null,
  item: JsonObject,
  hash: (value: JsonValue) => string
): Array<string | null> {
  const base = ['messages.upsert', chatJid, part(field(item, 'key', 'id'))];
  const stubType = item.messageStubType;
  const isStubOrPlaceholder = stubType != null || item.message == null;
  if (!isStubOrPlaceholder) return base;
  const parameters = item.messageStubParameters ?? null;
  const hasParameters = Array.isArray(parameters) ? parameters.length > 0 : parameters !== null;
  return [...base, 'stub', part(stubType), hasParameters ? hash(parameters) : ''];
}

function reactionParts(item: JsonObject, selfJid: string | null): string[] {
  const reactionKey = field(item, 'reaction', 'key');
  const participant = field(reactionKey, 'participant');
  const isOwn = field(reactionKey, 'fromMe') === true;
  const reactor =
    typeof participant === 'string' && participant !== ''
      ? participant
      : isOwn && selfJid
        ? jidNormalizedUser(selfJid)
        : '';
  return ['messages.reaction', part(field(item, 'key', 'id')), reactor, part(field(item, 'reaction', 'text'))];
}

/**
 * The UUIDv5 name of an item: its parts joined with `|`, null/undefined parts as '' (architecture.md §4).
 * - `messages.upsert` with content: type · `key.remoteJid` · `key.id`;
 *   stub or placeholder (`messageStubType` set, or no `message`): + `stub` · `messageStubType` · `hash(messageStubParameters)`;
 * - `messages.reaction`: type · target `key.id` · reactor (`reaction.key.participant`, or the
 *   collector's own JID when absent and `fromMe`) · `reaction.text` (no `senderTimestampMs`);
 * - `messages.update`, `messages.delete`: type · group JID · `key.id` · `hash(item)`;
 * - every other type: type · group JID · `hash(item)`, then `size=N` for a partial snapshot (ADR 0007).
 */
export function eventIdName(input: EventIdInput): string {
  return nameWith(input, hashItem, true);
}

/**
 * The name the first collector gave the same item: `*Pn` and `phoneNumber` fields
 * were hashed, and a partial snapshot had no `size` part. Equal to {@link eventIdName} for items
 * without such fields.
 */
export function firstCollectorEventIdName(input: EventIdInput): string {
  return nameWith(input, hashItemAsFirstCollector, false);
}

function nameWith(input: EventIdInput, hash: (value: JsonValue) => string, isPartialSizeKept: boolean): string {
  const { type, chatJid, item, selfJid } = input;
  let parts: Array<string | null>;
  if (type === 'messages.upsert' && isJsonObject(item)) parts = upsertParts(chatJid, item, hash);
  else if (type === 'messages.reaction' && isJsonObject(item)) parts = reactionParts(item, selfJid);
  else if (type === 'messages.update') parts = [type, chatJid, part(field(item, 'key', 'id')), hash(item)];
  else if (type === 'messages.delete') parts = [type, chatJid, part(field(item, 'keys', '0', 'id')), hash(item)];
  else {
    parts = [type, chatJid, hash(item)];
    const size = isPartialSizeKept ? partialSnapshotSize(item) : null;
    if (size !== null) parts.push(`size=${size}`);
  }
  return parts.map((p) => p ?? '').join('|');
}

/**
 * One-shot SHA-1: `crypto.hash` (Node ≥ 20.12) skips the `Hash` object that `createHash` builds per
 * call, which was a third of the per-event CPU; the `createHash` fallback keeps Node 20.11 working.
 */
function sha1(data: string | Uint8Array, encoding: 'hex'): string;
function sha1(data: string | Uint8Array, encoding: 'buffer'): Buffer;
function sha1(data: string | Uint8Array, encoding: 'hex' | 'buffer'): string | Buffer {
  // A namespace import: a named import of `hash` would fail to link on Node 20.11.
  if (typeof crypto.hash === 'function')
    return encoding === 'hex' ? crypto.hash('sha1', data, 'hex') : crypto.hash('sha1', data, 'buffer');
  const digest = crypto.createHash('sha1').update(data);
  return encoding === 'hex' ? digest.digest('hex') : digest.digest();
}

const NAMESPACE_BYTES = Buffer.from(EVENT_ID_NAMESPACE.replaceAll('-', ''), 'hex');
/** Reused input of the UUIDv5 hash (namespace bytes, then the UTF-8 name); longer names get their own buffer. */
const NAME_BUFFER = Buffer.alloc(4096);
NAMESPACE_BYTES.copy(NAME_BUFFER);
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lower-case hex of `bytes[from, to)`. */
function hexOf(bytes: Buffer, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += HEX_BYTES[bytes[i] ?? 0] ?? '';
  return out;
}

/**
 * UUIDv5 (RFC 9562: SHA-1 of namespace bytes + UTF-8 name, version 5, RFC variant) of a name in
 * `EVENT_ID_NAMESPACE`. Golden: `messages.upsert|120363000000000001@g.us|3EB0A0000000000000000001` →
 * `7c301bfa-8af7-53a4-9bc3-8e9bcf75641d` (architecture.md §4). Computed here rather than with `uuid`'s `v5`,
 * which throws `URIError` on a lone surrogate (a broken emoji in a reaction would lose the event);
 * the name is made well-formed first, so equal to `uuid` on every well-formed name.
 */
export function eventIdFromName(name: string): string {
  const wellFormed = (name as string & { toWellFormed(): string }).toWellFormed();
  // A UTF-16 unit takes at most 3 UTF-8 bytes, so a name that fits by this bound is never cut short.
  const fits = NAMESPACE_BYTES.length + wellFormed.length * 3 <= NAME_BUFFER.length;
  const input = fits
    ? NAME_BUFFER.subarray(0, NAMESPACE_BYTES.length + NAME_BUFFER.write(wellFormed, NAMESPACE_BYTES.length, 'utf8'))
    : Buffer.concat([NAMESPACE_BYTES, Buffer.from(wellFormed, 'utf8')]);
  const digest = sha1(input, 'buffer');
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  return `${hexOf(digest, 0, 4)}-${hexOf(digest, 4, 6)}-${hexOf(digest, 6, 8)}-${hexOf(digest, 8, 10)}-${hexOf(digest, 10, 16)}`;
}

/** `event_id` of one normalized item: `UUIDv5(EVENT_ID_NAMESPACE, eventIdName(input))` (architecture.md §4). */
export function deriveEventId(input: EventIdInput): string {
  return eventIdFromName(eventIdName(input));
}

/**
 * The id the first collector gave the same item, when its key rules give another one than
 * {@link deriveEventId} (docs/architecture.md "Backfilling the first collector's
 * trail"); null when both rules agree (every message with content, most others). Costs one more hash
 * of the item, so the pipeline asks only when replaying a trail.
 */
export function deriveFirstCollectorEventId(input: EventIdInput, eventId = deriveEventId(input)): string | null {
  const legacy = eventIdFromName(firstCollectorEventIdName(input));
  return legacy === eventId ? null : legacy;
}
