import type { JsonValue } from '../../common/json-value.js';

/** Per-field value and version of a group (`whatsapp_groups.fields` / `.field_versions`). */
export interface GroupFieldState {
  fields: Record<string, JsonValue>;
  versions: Record<string, string>;
}

/**
 * Version of a write: rank (`1` timed, `0` untimed hint), zero-padded event time (epoch ms), then
 * event_id, so plain string comparison puts every timed write above every untimed hint (ADR 0007),
 * then orders by event time with ties broken by event_id (architecture.md §9).
 *
 * @param isTimed - true when the event carries its own time or is a snapshot (ADR 0007).
 */
export function toVersion(atMs: number, eventId: string, isTimed = true): string {
  return `${isTimed ? '1' : '0'}|${String(Math.max(0, Math.trunc(atMs))).padStart(16, '0')}|${eventId}`;
}

/**
 * Merges field writes last-writer-wins per field. Commutative and idempotent, so the order of
 * delivery does not change the result.
 */
export function mergeGroupFields(
  state: GroupFieldState,
  writes: Record<string, JsonValue>,
  version: string
): GroupFieldState {
  const fields = { ...state.fields };
  const versions = { ...state.versions };
  for (const [key, value] of Object.entries(writes)) {
    const current = versions[key];
    if (current !== undefined && current >= version) continue;
    fields[key] = value;
    versions[key] = version;
  }
  return { fields, versions };
}

/** Column values derived from the merged fields: subject, description, and the rest as settings. */
export function toGroupColumns(fields: Record<string, JsonValue>): {
  subject: string | null;
  description: string | null;
  settings: Record<string, JsonValue>;
} {
  const { subject, description, ...settings } = fields;
  return {
    subject: typeof subject === 'string' ? subject : null,
    description: typeof description === 'string' ? description : null,
    settings,
  };
}
