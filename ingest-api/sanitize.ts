import { isUtf8 } from 'node:buffer';
import type { JsonValue } from '../common/json-value.js';

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
 * Makes one string storable: replaces unpaired surrogates with U+FFFD and removes U+0000; valid
 * surrogate pairs and all other text are untouched. Source: architecture.md §8 (sanitizing).
 * Surrogates first: removing a NUL between two lone halves must not join them into a character
 * the sender never sent.
 */
export function sanitizeString(value: string): string {
  return value.replace(LONE_SURROGATE, REPLACEMENT).replaceAll('\u0000', '');
}

/**
 * Decodes a raw request body and makes it storable as `jsonb` (architecture.md §8):
 * - invalid UTF-8 byte sequences become U+FFFD (WHATWG decoding, one per maximal bad subpart);
 * - U+0000 is removed from string values and keys; unpaired surrogates become U+FFFD;
 * - keys that collide once sanitized: a key that was already clean keeps its value; the others keep
 *   theirs under `key + U+FFFD + n` (n = 1, 2, … the first free), in document order — nothing is dropped.
 * Valid input is returned as the very same text, so PostgreSQL parses the received bytes.
 *
 * - a number PostgreSQL cannot render cheaply (exponent beyond {@link MAX_STORED_NUMBER_EXPONENT}, or
 *   past the body's {@link STORED_NUMBER_EXPONENT_BUDGET}) becomes a string of its exact text.
 * On the sanitizing path only the string tokens that need it are rewritten; everything else (numbers
 * digit for digit, `1.0`, `1e400`, whitespace, clean strings) is copied from the received text,
 * so jsonb stores numbers exactly there too. `value` holds JS numbers (doubles). Any depth is handled
 * without recursion; callers bound it afterwards (`measureJsonDepth`).
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
  const withCheapNumbers = LARGE_EXPONENT.test(text) ? rewriteCostlyNumbers(text) : null;
  const current = withCheapNumbers ?? text;
  if (isValidUtf8 && !SUSPICIOUS_ESCAPE.test(current)) {
    if (withCheapNumbers === null) return { text, value, isSanitized: false };
    return { text: current, value: JSON.parse(current) as JsonValue, isSanitized: true };
  }
  const storable = rewriteUnstorableStrings(current);
  if (storable === null && withCheapNumbers === null) return { text, value, isSanitized: !isValidUtf8 };
  const final = storable ?? current;
  return { text: final, value: JSON.parse(final) as JsonValue, isSanitized: true };
}

/**
 * Largest decimal exponent a stored number keeps as a number (ADR 0014). PostgreSQL
 * renders `1e131071` as 131,072 digits, so 10,000 of them in a 90 KB body made every `payload::text` of
 * maintenance (forget, rebuild, retention) run out of memory.
 */
export const MAX_STORED_NUMBER_EXPONENT = 1000;
/**
 * Rendered digits one body's exponent numbers may add (the sum of their exponents' magnitudes): past it,
 * further numbers with an exponent of 100 or more are kept as strings too, so no body renders past ~1 MB
 * more than it weighs.
 */
export const STORED_NUMBER_EXPONENT_BUDGET = 1_000_000;
// Cheap pre-check: an exponent of 100 or more somewhere (possibly inside a string; the walk decides).
const LARGE_EXPONENT = /[eE][+-]?0*[1-9]\d{2}/;
const BUDGETED_EXPONENT = 100;
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE]([+-]?\d+))?/y;

/**
 * Rewrites number tokens PostgreSQL cannot render cheaply as JSON strings of their exact received text
 * (`1e131071` → `"1e131071"`): an exponent beyond {@link MAX_STORED_NUMBER_EXPONENT} in magnitude, or any
 * exponent of 100 or more once {@link STORED_NUMBER_EXPONENT_BUDGET} is spent. Strings are skipped;
 * everything else is copied as received. Returns null when no token changed.
 */
function rewriteCostlyNumbers(text: string): string | null {
  const parts: string[] = [];
  let budget = STORED_NUMBER_EXPONENT_BUDGET;
  let copiedTo = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = findStringEnd(text, i);
      continue;
    }
    if (code !== 0x2d && (code < 0x30 || code > 0x39)) continue;
    NUMBER_TOKEN.lastIndex = i;
    const match = NUMBER_TOKEN.exec(text);
    if (match === null) continue;
    const magnitude = match[1] === undefined ? 0 : Math.abs(Number(match[1]));
    if (magnitude >= BUDGETED_EXPONENT) budget -= magnitude;
    if (magnitude > MAX_STORED_NUMBER_EXPONENT || (magnitude >= BUDGETED_EXPONENT && budget < 0)) {
      parts.push(text.slice(copiedTo, i), JSON.stringify(match[0]));
      copiedTo = i + match[0].length;
    }
    i += match[0].length - 1;
  }
  if (parts.length === 0) return null;
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

/** Keys of one object literal, collected until its closing brace decides the renames. */
interface ObjectFrame {
  cleanKeys: Set<string>;
  /** Keys that sanitizing changed, in document order; `slot` is their place in the output parts. */
  dirtyKeys: Array<{ slot: number; received: string; clean: string }>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Rewrites the string tokens of already validated JSON text that jsonb would refuse, copying every
 * other character as received. Returns null when no token changed. Single pass with an explicit
 * stack of open objects, so hostile depth cannot overflow the call stack.
 */
function rewriteUnstorableStrings(text: string): string | null {
  const parts: string[] = [];
  const frames: ObjectFrame[] = [];
  let copiedTo = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === OPEN_BRACE) frames.push({ cleanKeys: new Set(), dirtyKeys: [] });
    else if (code === CLOSE_BRACE) nameDirtyKeys(frames.pop() as ObjectFrame, parts);
    if (code !== QUOTE) continue;
    const end = findStringEnd(text, i);
    const token = text.slice(i, end + 1);
    const isKey = text.charCodeAt(skipWhitespace(text, end + 1)) === COLON;
    // Decoded UTF-8 holds no lone surrogate and JSON forbids raw control characters, so only a
    // \u escape can put U+0000 or a lone surrogate into a string.
    const hasUnicodeEscape = token.includes('\\u');
    if (!isKey && !hasUnicodeEscape) {
      i = end;
      continue;
    }
    const received = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
    const clean = hasUnicodeEscape ? sanitizeString(received) : received;
    if (isKey) {
      const frame = frames[frames.length - 1] as ObjectFrame;
      if (clean === received) frame.cleanKeys.add(received);
      else frame.dirtyKeys.push({ slot: parts.length + 1, received, clean });
    }
    if (clean !== received) {
      parts.push(text.slice(copiedTo, i), isKey ? '' : JSON.stringify(clean));
      copiedTo = end + 1;
    }
    i = end;
  }
  if (parts.length === 0) return null;
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

/**
 * Fills the output slots of an object's sanitized keys once all its clean keys are known. A repeated
 * received key gets the same name again, so jsonb keeps its last value, as for any duplicate key.
 */
function nameDirtyKeys(frame: ObjectFrame, parts: string[]): void {
  const names = new Map<string, string>();
  // Per cleaned key, the first suffix not yet tried: names are only ever added, so every smaller
  // suffix is still taken. Without it, n keys that clean to one name cost n² lookups (a 4 MiB body
  // froze the event loop for minutes).
  const nextSuffix = new Map<string, number>();
  for (const key of frame.dirtyKeys) {
    let name = names.get(key.received);
    if (name === undefined) {
      name = key.clean;
      let n = nextSuffix.get(key.clean) ?? 1;
      if (frame.cleanKeys.has(name)) {
        while (frame.cleanKeys.has(`${key.clean}${REPLACEMENT}${n}`)) n += 1;
        name = `${key.clean}${REPLACEMENT}${n}`;
        n += 1;
      }
      nextSuffix.set(key.clean, n);
      frame.cleanKeys.add(name);
      names.set(key.received, name);
    }
    parts[key.slot] = JSON.stringify(name);
  }
}

/** Index of the quote closing the string that opens at `start` (the text is valid JSON). */
function findStringEnd(text: string, start: number): number {
  for (let from = start + 1; ;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new Error('unterminated string in validated JSON');
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** Index of the first character at or after `from` that is not JSON whitespace. */
function skipWhitespace(text: string, from: number): number {
  let i = from;
  for (let code = text.charCodeAt(i); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;) {
    i += 1;
    code = text.charCodeAt(i);
  }
  return i;
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
