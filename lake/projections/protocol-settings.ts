import type { JsonValue } from '../../common/json-value.js';

/** `proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING` in Baileys 7.0.0-rc14 (`WAProto/index.d.ts`). */
const EPHEMERAL_SETTING = 3;

type JsonObject = { [key: string]: JsonValue };
const asObject = (value: JsonValue | undefined): JsonObject | null =>
  value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value) ? value : null;

/**
 * Group settings a protocol message states (ADR 0007): type 3 EPHEMERAL_SETTING sets the
 * disappearing-messages timer (`ephemeralDuration`, seconds; 0 = off), as Baileys builds it from a
 * group's `ephemeral` / `not_ephemeral` notification. The message may be wrapped in
 * `ephemeralMessage` (a chat whose timer is already on). Enum names are accepted for old captures.
 *
 * @param message - `WebMessageInfo.message` of a `messages.upsert` item.
 * @returns field writes keyed like the snapshot's settings; empty when the message states none.
 */
export function readProtocolSettings(message: JsonValue | undefined): Record<string, JsonValue> {
  const content = asObject(message);
  const protocol =
    asObject(content?.['protocolMessage']) ??
    asObject(asObject(asObject(content?.['ephemeralMessage'])?.['message'])?.['protocolMessage']);
  const type = protocol?.['type'];
  if (type !== EPHEMERAL_SETTING && type !== String(EPHEMERAL_SETTING) && type !== 'EPHEMERAL_SETTING') return {};
  const raw = protocol?.['ephemeralExpiration'];
  const duration = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : 0;
  return { ephemeralDuration: Number.isSafeInteger(duration) && duration >= 0 ? duration : 0 };
}
