/**
 * A JSON-safe value, as `JSON.parse` returns it: what the collector's normalization produces and its
 * outbox body holds (architecture.md §4), and what the ingest API parses from a delivery. Defined once here,
 * for both processes.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object with JSON-safe values. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a non-null, non-array object. */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
