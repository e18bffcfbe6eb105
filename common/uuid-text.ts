const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when `text` is written as a UUID (8-4-4-4-12 hex digits, either case), whatever its version or variant:
 * the one shape check of `X-Event-Id`, `legacy_event_id`, message ids and template ids.
 * A value that passes always casts to PostgreSQL's `uuid`.
 */
export function isUuidText(text: string): boolean {
  return UUID_TEXT.test(text);
}
