import { isUtf8 } from 'node:buffer';

/** A JSON value as produced by `JSON.parse`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Result of {@link sanitizeRawJson}: the text to store and the parsed (sanitized) value. */
export interface SanitizedJson {
  /** JSON text PostgreSQL can store as `jsonb`: the received text itself when nothing changed. */
  text: string;
  /** The parsed document after sanitizing. */
  value: JsonValue;
  /** True when anything was replaced, removed or renamed (the row's `sanitized` flag). */
  isSanitized: boolean;
}

/** Thrown by {@link sanitizeRawJson} when the text is not JSON at all (HTTP 400). */
export class NotJsonError extends Error {
  override readonly name = 'NotJsonError';
  constructor(cause: unknown) {
    super('body is not valid JSON', { cause });
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Escapes that jsonb refuses: \u0000 and any surrogate escape (pairs are checked on the slow path).
const SUSPICIOUS_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;
const REPLACEMENT = '\uFFFD';

/**
 * Makes one string storable: removes U+0000 and replaces unpaired surrogates with U+FFFD; valid
 * surrogate pairs and all other text are untouched. Source: DESIGN §8 (sanitizing).
 */
export function sanitizeString(value: string): string {
  return value.replaceAll('\u0000', '').replace(LONE_SURROGATE, REPLACEMENT);
}

/**
 * Decodes a raw request body and makes it storable as `jsonb` (DESIGN §8, issue #5):
 * - invalid UTF-8 byte sequences become U+FFFD (WHATWG decoding, one per maximal bad subpart);
 * - U+0000 is removed from string values and keys; unpaired surrogates become U+FFFD;
 * - keys that collide once sanitized: a key that was already clean keeps its value; the others keep
 *   theirs under `key + U+FFFD + n` (n = 1, 2, … the first free), in document order — nothing is dropped.
 * Valid input is returned as the very same text, so PostgreSQL parses the received bytes.
 *
 * Numbers on the sanitizing path pass through `JSON.parse`, so integers beyond 2^53 lose precision
 * there only (the collector sends Longs as decimal strings, DESIGN §4).
 *
 * @throws NotJsonError when the (decoded) text is not JSON.
 */
export function sanitizeRawJson(raw: Buffer): SanitizedJson {
  const isValidUtf8 = isUtf8(raw);
  const text = raw.toString('utf8');
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new NotJsonError(err);
  }
  if (isValidUtf8 && !SUSPICIOUS_ESCAPE.test(text)) return { text, value, isSanitized: false };
  const state = { changed: !isValidUtf8 };
  const cleaned = sanitizeValue(value, state);
  if (!state.changed) return { text, value, isSanitized: false };
  return { text: JSON.stringify(cleaned), value: cleaned, isSanitized: true };
}

/**
 * Sanitizes a parsed JSON value (see {@link sanitizeRawJson} for the rules). Iterative over arrays
 * and objects is not needed: callers bound the depth first (`measureJsonDepth`).
 */
export function sanitizeValue(value: JsonValue, state: { changed: boolean }): JsonValue {
  if (typeof value === 'string') {
    const clean = sanitizeString(value);
    if (clean !== value) state.changed = true;
    return clean;
  }
  if (Array.isArray(value)) return value.map((item) => sanitizeValue(item, state));
  if (value === null || typeof value !== 'object') return value;
  return sanitizeObject(value, state);
}

function sanitizeObject(
  value: { [key: string]: JsonValue },
  state: { changed: boolean }
): { [key: string]: JsonValue } {
  const entries = Object.entries(value).map(([key, item]) => ({ key, clean: sanitizeString(key), item }));
  const taken = new Set(entries.filter((entry) => entry.clean === entry.key).map((entry) => entry.key));
  const out: { [key: string]: JsonValue } = {};
  for (const entry of entries) {
    let key = entry.clean;
    if (entry.clean !== entry.key) {
      state.changed = true;
      for (let n = 1; taken.has(key); n += 1) key = `${entry.clean}${REPLACEMENT}${n}`;
      taken.add(key);
    }
    Object.defineProperty(out, key, {
      value: sanitizeValue(entry.item, state),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Depth of nesting of a JSON value (0 for a scalar), computed without recursion so hostile input
 * cannot overflow the stack.
 */
export function measureJsonDepth(value: JsonValue): number {
  let max = 0;
  const stack: Array<[JsonValue, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [JsonValue, number];
    if (current === null || typeof current !== 'object') continue;
    max = Math.max(max, depth + 1);
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return max;
}
