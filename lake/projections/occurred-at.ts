import type { JsonValue } from '../../common/json-value.js';

type Unit = 'seconds' | 'milliseconds' | 'auto';
/** Where each event type keeps its own time: paths into the payload, first present wins. */
const TIME_FIELDS: ReadonlyMap<string, ReadonlyArray<{ path: readonly string[]; unit: Unit }>> = new Map(
  Object.entries({
    'messages.upsert': [{ path: ['messageTimestamp'], unit: 'seconds' }],
    'messages.update': [
      { path: ['update', 'messageTimestamp'], unit: 'seconds' },
      {
        path: ['update', 'message', 'editedMessage', 'message', 'protocolMessage', 'timestampMs'],
        unit: 'milliseconds',
      },
    ],
    'messages.reaction': [{ path: ['reaction', 'senderTimestampMs'], unit: 'milliseconds' }],
    'groups.update': [
      { path: ['subjectTime'], unit: 'seconds' },
      { path: ['descTime'], unit: 'seconds' },
    ],
    'groups.upsert': [{ path: ['creation'], unit: 'seconds' }],
    'group.member-tag.update': [{ path: ['messageTimestamp'], unit: 'seconds' }],
    call: [{ path: ['date'], unit: 'auto' }],
    'collector.session': [{ path: ['at_ms'], unit: 'milliseconds' }],
    'collector.heartbeat': [{ path: ['at_ms'], unit: 'milliseconds' }],
  } satisfies Record<string, ReadonlyArray<{ path: readonly string[]; unit: Unit }>>)
);

// PostgreSQL timestamptz and JS Date overlap comfortably in this range; anything else is not a time.
const MIN_MS = Date.UTC(1970, 0, 2);
const MAX_MS = Date.UTC(9999, 11, 31);

/**
 * The event's own time taken from its payload (`occurred_at`, architecture.md §9), or null when the type
 * carries none (`group-participants.update`, `messages.delete`, `lid-mapping.update`, …) or the value
 * is unusable. `groups.metadata` is a snapshot: its `subjectTime`/`creation` are not the time of the
 * snapshot, so it gets null and projections use `captured_at`.
 *
 * Accepted encodings (architecture.md §4 normalization and raw Baileys): number, decimal string, protobuf Long
 * as `{low, high, unsigned}`, ISO-8601 string (call `date`). Seconds vs milliseconds follow the field.
 *
 * @returns a Date within 1970-01-02 … 9999-12-31, or null.
 */
export function extractOccurredAt(type: string, payload: JsonValue): Date | null {
  for (const field of TIME_FIELDS.get(type) ?? []) {
    const raw = readPath(payload, field.path);
    if (raw === undefined || raw === null) continue;
    const ms = toEpochMs(raw, field.unit);
    if (ms !== null) return new Date(ms);
  }
  return null;
}

function readPath(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, key) ? current[key] : undefined;
  }
  return current;
}

/**
 * Converts one encoded time to epoch milliseconds.
 * @returns null when the value is not a time in the accepted range.
 */
export function toEpochMs(raw: JsonValue, unit: Unit): number | null {
  const count = toInteger(raw);
  let ms: number | null;
  if (count !== null) {
    const isMs = unit === 'milliseconds' || (unit === 'auto' && Math.abs(count) >= 1e11);
    ms = isMs ? count : count * 1000;
  } else if (typeof raw === 'string' && unit === 'auto') {
    ms = Date.parse(raw);
  } else {
    ms = null;
  }
  return ms !== null && Number.isFinite(ms) && ms >= MIN_MS && ms <= MAX_MS ? ms : null;
}

function toInteger(raw: JsonValue): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? Math.trunc(raw) : null;
  if (typeof raw === 'string') return /^-?\d{1,16}$/.test(raw) ? Number(raw) : null;
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const { low, high, unsigned } = raw;
    if (typeof low !== 'number' || typeof high !== 'number') return null;
    // Long halves are 32-bit ints; `>>> 0` reads a half as unsigned (always the low one).
    return (unsigned === true ? high >>> 0 : high | 0) * 2 ** 32 + (low >>> 0);
  }
  return null;
}

/** How far a payload's own time may lie after the event's capture time and still be believed (one day). */
export const MAX_OCCURRED_AFTER_CAPTURE_MS = 86_400_000;

/**
 * The time projections and the read model give an event (architecture.md §9, event times): its own time
 * (`occurred_at`) unless that lies more than {@link MAX_OCCURRED_AFTER_CAPTURE_MS} after its capture time
 * (`captured_at`, else `received_at`); a clock in the future is not believed, so the capture time stands in. The raw
 * row keeps `occurred_at` and the payload as sent: an event whose `occurred_at` lies after that bound is the flag.
 */
export function eventTime(
  occurredAt: Date | null,
  capturedAt: Date | null,
  receivedAt: Date
): { at: Date; hasOwnTime: boolean } {
  const capture = capturedAt ?? receivedAt;
  if (occurredAt !== null && occurredAt.getTime() <= capture.getTime() + MAX_OCCURRED_AFTER_CAPTURE_MS)
    return { at: occurredAt, hasOwnTime: true };
  return { at: capture, hasOwnTime: false };
}

/** {@link eventTime} over a `whatsapp_event_logs` row in SQL: the event time, then whether it is the row's own. */
export const EVENT_TIME_SQL = `CASE WHEN occurred_at <= COALESCE(captured_at, received_at) + interval '1 day'
        THEN occurred_at ELSE COALESCE(captured_at, received_at) END`;
export const HAS_OWN_TIME_SQL = `COALESCE(occurred_at <= COALESCE(captured_at, received_at) + interval '1 day', false)`;
