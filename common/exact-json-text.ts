import { randomBytes } from 'node:crypto';
import { parse as parseLossless } from 'lossless-json';

const INTEGER_LITERAL = /^-?\d+$/;

/**
 * A JSON number literal as JavaScript keeps it exactly: an integer beyond 2^53 − 1 as a `bigint` (every digit),
 * anything else as a double, as `JSON.parse` gives it. Send metadata carries ids such as Discord's, which are that
 * large (ADR 0014 decision 4).
 */
export function parseExactNumber(literal: string): number | bigint {
  const value = Number(literal);
  return INTEGER_LITERAL.test(literal) && !Number.isSafeInteger(value) ? BigInt(literal) : value;
}

/**
 * Parses JSON text keeping integers beyond 2^53 − 1 as `bigint` ({@link parseExactNumber}); for text the lake
 * wrote itself (a `jsonb` column read as text), whose nesting it already bounded.
 * @throws SyntaxError for text that is not JSON.
 */
export function parseJsonKeepingIntegers(text: string): unknown {
  return parseLossless(text, null, parseExactNumber);
}

// A per-process random tag: a caller's string cannot forge it, so only real bigints become bare digits.
const BIGINT_TAG = `\u0000bigint-${randomBytes(16).toString('hex')}:`;
const TAGGED = new RegExp(`"\\\\u0000bigint-${BIGINT_TAG.slice(8, 40)}:(-?\\d+)"`, 'g');

/**
 * `JSON.stringify` that writes a `bigint` as its digits (a JSON number) instead of throwing; everything else is
 * byte for byte what `JSON.stringify` writes, so hashes of bodies without one do not change.
 */
export function stringifyJsonExactly(value: unknown): string {
  let hasBigInt = false;
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner !== 'bigint') return inner;
    hasBigInt = true;
    return `${BIGINT_TAG}${inner.toString()}`;
  });
  return hasBigInt ? text.replace(TAGGED, '$1') : text;
}
