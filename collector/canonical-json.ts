import type { JsonValue } from '../common/json-value.js';

/** `String.prototype.toWellFormed` (ES2024; present in Node 20) — lone surrogates become U+FFFD. */
const toWellFormed = (text: string): string => (text as string & { toWellFormed(): string }).toWellFormed();

/**
 * Compares two strings by Unicode code point (not UTF-16 unit, not `localeCompare`: a locale must
 * never change an id order; architecture.md §4). Both strings must be well-formed.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) {
      // At the first differing unit both strings agree on everything before it, so codePointAt(i)
      // reads a whole astral code point when a pair starts here, and a low surrogate when both are
      // inside pairs with the same high surrogate: either way the order is the code-point order.
      return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
    }
  }
  return a.length - b.length;
}

/** Decides whether a key is left out of the canonical form (volatile fields). */
export type OmitKey = (key: string, value: JsonValue) => boolean;

/**
 * Canonical JSON of a normalized value, the input of `hash(x)` (architecture.md §4):
 * - object keys sorted by UTF-16 code unit (the default string order);
 * - arrays whose elements are all objects with an `id` sorted by that id in code-point order
 *   (a stable sort; non-string ids compare by their canonical JSON);
 * - every string and key made well-formed (`toWellFormed()`);
 * - keys for which `omitKey` returns true left out at any depth.
 * @returns compact JSON text; equal for values that differ only in key or id-array order.
 */
export function canonicalJson(value: JsonValue, omitKey?: OmitKey): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? JSON.stringify(toWellFormed(value)) : JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    const ordered = hasIdOnEveryElement(value) ? sortById(value, omitKey) : value;
    return `[${ordered.map((element) => canonicalJson(element, omitKey)).join(',')}]`;
  }
  const parts: string[] = [];
  const keys = Object.keys(value)
    .map((key) => [toWellFormed(key), key] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [wellFormedKey, key] of keys) {
    const child = value[key] as JsonValue;
    if (omitKey?.(key, child) === true) continue;
    parts.push(`${JSON.stringify(wellFormedKey)}:${canonicalJson(child, omitKey)}`);
  }
  return `{${parts.join(',')}}`;
}

function hasIdOnEveryElement(items: JsonValue[]): boolean {
  return (
    items.length > 1 &&
    items.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item) && item.id != null)
  );
}

function sortById(items: JsonValue[], omitKey?: OmitKey): JsonValue[] {
  const withKeys = items.map((item) => {
    const id = (item as { id: JsonValue }).id;
    return { item, sortKey: typeof id === 'string' ? toWellFormed(id) : canonicalJson(id, omitKey) };
  });
  return withKeys.sort((a, b) => compareCodePoints(a.sortKey, b.sortKey)).map(({ item }) => item);
}
