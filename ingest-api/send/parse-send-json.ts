import { parse as parseLossless } from 'lossless-json';
import { parseExactNumber } from '../../common/exact-json-text.js';
import { IngestHttpError } from '../errors.js';

/**
 * Deepest nesting a send body may have (the body object is depth 1, `metadata` depth 2): deeper is 422, checked
 * by one iterative scan before any recursive code runs, so that 5,000 levels are a 422, not a stack overflow.
 */
export const SEND_BODY_MAX_DEPTH = 32;

/** Keys that JavaScript objects treat specially; a body holding one is refused rather than silently changed. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Deepest `{`/`[` nesting outside string literals, in one pass (malformed text is left to the parser). */
function maxDepthOf(text: string): number {
  let depth = 0;
  let maxDepth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '{' || char === '[') {
      maxDepth = Math.max(maxDepth, ++depth);
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return maxDepth;
}

function unrepresentable(message: string): IngestHttpError {
  return new IngestHttpError('WA_ERR_UNREPRESENTABLE_JSON', message);
}

/**
 * A number literal kept exactly: an integer beyond 2^53 − 1 as a `bigint` (stored, read back and sent in status
 * webhooks digit for digit), or 422 when it is not finite (`1e400`): JSON has no such number to keep.
 */
function parseNumberExactly(literal: string): number | bigint {
  const value = parseExactNumber(literal);
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw unrepresentable(`the number ${literal.slice(0, 40)} is not finite`);
  }
  return value;
}

/** Every key of the parsed value, without recursion (depth is already bounded, but a wide body stays cheap). */
function refuseReservedKeys(root: unknown): void {
  const pending: unknown[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (value === null || typeof value !== 'object') continue;
    for (const key of Object.keys(value)) {
      if (RESERVED_KEYS.has(key)) throw unrepresentable(`the key "${key}" is reserved; rename it`);
      pending.push((value as Record<string, unknown>)[key]);
    }
  }
}

/**
 * Parses a send body so that what is accepted is what is stored (ADR 0014 decision 4):
 * 400 `WA_ERR_INVALID_JSON` for text that is not JSON; 422 `WA_ERR_UNREPRESENTABLE_JSON` for nesting deeper than
 * {@link SEND_BODY_MAX_DEPTH}, a number that is not finite (`1e400`), a key given twice in one object and a
 * `__proto__`, `constructor` or `prototype` key. An integer beyond 2^53 − 1 becomes a `bigint`; every other number parses as `JSON.parse` would.
 */
export function parseSendJson(text: string): unknown {
  if (maxDepthOf(text) > SEND_BODY_MAX_DEPTH) {
    throw unrepresentable(`the body is nested deeper than ${String(SEND_BODY_MAX_DEPTH)} levels`);
  }
  let parsed: unknown;
  try {
    parsed = parseLossless(text, null, parseNumberExactly);
  } catch (err) {
    if (err instanceof IngestHttpError) throw err;
    // Valid JSON text, but which of two values under one key was meant is anyone's guess: refused, never picked.
    const duplicate = err instanceof Error ? /^Duplicate key '(.{0,80}?)' encountered/.exec(err.message) : null;
    if (duplicate) throw unrepresentable(`the key "${duplicate[1] ?? ''}" appears twice in one object`);
    throw new IngestHttpError('WA_ERR_INVALID_JSON', 'body is not valid JSON', undefined, { cause: err });
  }
  refuseReservedKeys(parsed);
  return parsed;
}
