import { createHash } from 'node:crypto';
import type { IngestBody } from '../common/ingest-body.js';
import { isJsonObject, type JsonValue } from '../common/json-value.js';
import { jidNormalizedUser } from '../common/whatsapp-jid.js';
import type { KeptItem } from './edge-filter.js';
import type { EventSource } from './history-items.js';
import { deriveEventId, deriveFirstCollectorEventId, eventIdFromName } from './event-id.js';
import { UnserializableValueError } from './normalize/errors.js';
import { lenientJson } from './normalize/lenient-json.js';
import { normalizeItem } from './normalize/normalize-value.js';
import { stripLargeBinaries } from './normalize/strip-large-binaries.js';
import type { OutboxDeadInput, OutboxEventInput } from './outbox-store.js';

/** Size limits of one outbox body (architecture.md §5). */
export interface BodyLimits {
  /** Largest body in UTF-8 bytes; larger items go `dead` (default 1 MiB: Temporal rejects 2 MB). */
  bodyLimitBytes: number;
  /** Largest inline binary in decoded bytes; larger ones become an omitted marker (default 64 KiB). */
  inlineBinaryLimitBytes: number;
}

/** Defaults of architecture.md §5. */
export const DEFAULT_BODY_LIMITS: Readonly<BodyLimits> = Object.freeze({
  bodyLimitBytes: 1024 * 1024,
  inlineBinaryLimitBytes: 64 * 1024,
});

/** Outcome for one item: a row to enqueue as `pending`, or as `dead` with a reason. */
export type PreparedItem = { kind: 'pending'; row: OutboxEventInput } | { kind: 'dead'; row: OutboxDeadInput };

/** Optional body fields of one item. */
type BodyExtras = Pick<IngestBody, 'account_jid' | 'account_lid' | 'legacy_event_id' | 'source'>;

function serializeBody(
  kept: KeptItem,
  payload: IngestBody['payload'],
  capturedAtIso: string,
  extras: BodyExtras
): string {
  const body: IngestBody = { type: kept.type, chat_jid: kept.chatJid, payload, captured_at: capturedAtIso };
  if (kept.upsertType !== undefined) body.upsert_type = kept.upsertType;
  if (extras.account_jid !== undefined) body.account_jid = extras.account_jid;
  if (extras.account_lid !== undefined) body.account_lid = extras.account_lid;
  if (extras.legacy_event_id !== undefined) body.legacy_event_id = extras.legacy_event_id;
  if (extras.source !== undefined) body.source = extras.source;
  return JSON.stringify(body);
}

/** `WebMessageInfo.StubType` participant changes in Baileys rc14: ADD 27 … LEAVE 32, ADD_REQUEST_JOIN 71. */
const MEMBERSHIP_STUB_TYPES: ReadonlySet<JsonValue> = new Set([27, 28, 29, 30, 31, 32, 71]);

/** True for items that can state the linked account's own membership of a group (ADR 0007). */
function statesMembership(type: string, payload: JsonValue): boolean {
  if (type === 'group-participants.update') return true;
  return (
    type === 'messages.upsert' && isJsonObject(payload) && MEMBERSHIP_STUB_TYPES.has(payload.messageStubType ?? null)
  );
}

/**
 * True for items the linked account wrote itself (ADR 0019): a message (`key.fromMe`) or a reaction
 * (`reaction.key.fromMe`), which name no participant, so the lake needs the account's JID to count them.
 */
function isOwnItem(type: string, payload: JsonValue): boolean {
  if (!isJsonObject(payload)) return false;
  const key = type === 'messages.reaction' && isJsonObject(payload.reaction) ? payload.reaction.key : payload.key;
  return (type === 'messages.upsert' || type === 'messages.reaction') && isJsonObject(key) && key.fromMe === true;
}

/** A deterministic id for an item that cannot be normalized, so replaying it adds no second dead row. */
function deadRow(kept: KeptItem, capturedAtIso: string, reason: string): OutboxDeadInput {
  const text = lenientJson(kept.item);
  const digest = createHash('sha1').update(text).digest('hex');
  const eventId = eventIdFromName(['dead', kept.type, kept.chatJid ?? '', digest].join('|'));
  const body = `{"type":${JSON.stringify(kept.type)},"chat_jid":${JSON.stringify(kept.chatJid)},"payload":${text},"captured_at":${JSON.stringify(capturedAtIso)}}`;
  return { eventId, type: kept.type, chatJid: kept.chatJid, body, reason };
}

/**
 * Normalizes one kept item, derives its `event_id`, strips large binaries (after the id), and builds
 * the exact body text (architecture.md §4, §5), with `account_jid` (and `account_lid`) on membership items and the
 * account's own messages and reactions and, when `withFirstCollectorEventId` (trail replay), the first
 * collector's id if it differs, and the item's `source` (ADR 0016; not part of the id). Never throws:
 * an unserializable, empty or oversized item
 * comes back as a `dead` row with the reason (its body kept as far as it can be written).
 */
export function prepareItem(
  kept: KeptItem,
  capturedAtIso: string,
  selfJid: string | null,
  limits: BodyLimits,
  options: { withFirstCollectorEventId?: boolean; source?: EventSource; selfLid?: string | null } = {}
): PreparedItem {
  let payload: JsonValue;
  try {
    payload = normalizeItem(kept.type, kept.item);
  } catch (err) {
    // Any failure (also a throwing getter on a foreign object) quarantines this one item, never the batch.
    const reason = err instanceof UnserializableValueError ? err.message : `normalization failed: ${String(err)}`;
    return { kind: 'dead', row: deadRow(kept, capturedAtIso, reason) };
  }
  const isNonEmpty = Array.isArray(payload)
    ? payload.length > 0
    : isJsonObject(payload) && Object.keys(payload).length > 0;
  if (!isNonEmpty)
    return { kind: 'dead', row: deadRow(kept, capturedAtIso, 'item is not a non-empty object or array') };
  const idInput = { type: kept.type, chatJid: kept.chatJid, item: payload, selfJid };
  const eventId = deriveEventId(idInput);
  const extras: BodyExtras = {};
  // Absent means live (every body before ADR 0016 was live or said otherwise): live bodies keep their bytes.
  if (options.source !== undefined && options.source !== 'live') extras.source = options.source;
  if (selfJid !== null && (statesMembership(kept.type, payload) || isOwnItem(kept.type, payload))) {
    extras.account_jid = jidNormalizedUser(selfJid);
    // The account is named by its LID as often as by its phone JID (ADR 0019).
    if (options.selfLid) extras.account_lid = jidNormalizedUser(options.selfLid);
  }
  const legacyEventId =
    options.withFirstCollectorEventId === true ? deriveFirstCollectorEventId(idInput, eventId) : null;
  if (legacyEventId !== null) extras.legacy_event_id = legacyEventId;
  let body = serializeBody(kept, payload as IngestBody['payload'], capturedAtIso, extras);
  if (body.length > limits.inlineBinaryLimitBytes) {
    body = serializeBody(
      kept,
      stripLargeBinaries(payload, limits.inlineBinaryLimitBytes) as IngestBody['payload'],
      capturedAtIso,
      extras
    );
  }
  // `length` counts UTF-16 units; each is at most 3 UTF-8 bytes, so the exact count is needed only near the limit.
  const row = { eventId, type: kept.type, chatJid: kept.chatJid, body };
  if (body.length * 3 > limits.bodyLimitBytes) {
    const sizeBytes = Buffer.byteLength(body, 'utf8');
    if (sizeBytes > limits.bodyLimitBytes) {
      return {
        kind: 'dead',
        row: { ...row, reason: `body of ${sizeBytes} bytes is over the limit of ${limits.bodyLimitBytes} bytes` },
      };
    }
  }
  return { kind: 'pending', row };
}
