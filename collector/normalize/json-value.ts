/** A JSON-safe value: what normalization produces and what the outbox body holds (DESIGN §4). */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object with JSON-safe values. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a non-null, non-array object. */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
