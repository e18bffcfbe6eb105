import { createHash } from 'node:crypto';
import type { IngestBody } from '../common/ingest-body.js';
import { isJsonObject, type JsonValue } from '../common/json-value.js';
import type { KeptItem } from './edge-filter.js';
import { deriveEventId, eventIdFromName } from './event-id.js';
import { UnserializableValueError } from './normalize/errors.js';
import { lenientJson } from './normalize/lenient-json.js';
import { normalizeItem } from './normalize/normalize-value.js';
import { stripLargeBinaries } from './normalize/strip-large-binaries.js';
import type { OutboxDeadInput, OutboxEventInput } from './outbox-store.js';

/** Size limits of one outbox body (DESIGN §5). */
export interface BodyLimits {
  /** Largest body in UTF-8 bytes; larger items go `dead` (default 1 MiB: Temporal rejects 2 MB). */
  bodyLimitBytes: number;
  /** Largest inline binary in decoded bytes; larger ones become an omitted marker (default 64 KiB). */
  inlineBinaryLimitBytes: number;
}

/** Defaults of DESIGN §5. */
export const DEFAULT_BODY_LIMITS: Readonly<BodyLimits> = Object.freeze({
  bodyLimitBytes: 1024 * 1024,
  inlineBinaryLimitBytes: 64 * 1024,
});

/** Outcome for one item: a row to enqueue as `pending`, or as `dead` with a reason. */
export type PreparedItem = { kind: 'pending'; row: OutboxEventInput } | { kind: 'dead'; row: OutboxDeadInput };

function serializeBody(kept: KeptItem, payload: IngestBody['payload'], capturedAtIso: string): string {
  const body: IngestBody = { type: kept.type, chat_jid: kept.chatJid, payload, captured_at: capturedAtIso };
  if (kept.upsertType !== undefined) body.upsert_type = kept.upsertType;
  return JSON.stringify(body);
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
 * the exact body text (DESIGN §4, §5). Never throws: an unserializable, empty or oversized item
 * comes back as a `dead` row with the reason (its body kept as far as it can be written).
 */
export function prepareItem(
  kept: KeptItem,
  capturedAtIso: string,
  selfJid: string | null,
  limits: BodyLimits
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
  const eventId = deriveEventId({ type: kept.type, chatJid: kept.chatJid, item: payload, selfJid });
  let body = serializeBody(kept, payload as IngestBody['payload'], capturedAtIso);
  if (body.length > limits.inlineBinaryLimitBytes) {
    body = serializeBody(
      kept,
      stripLargeBinaries(payload, limits.inlineBinaryLimitBytes) as IngestBody['payload'],
      capturedAtIso
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
