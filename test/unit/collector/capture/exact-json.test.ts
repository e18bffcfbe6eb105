import { describe, expect, it } from 'vitest';
import { parseCaptureLine } from '../../../../collector/capture/capture-line.js';
import { LOSSLESS_MAX_DEPTH, parseJsonExactly } from '../../../../collector/capture/exact-json.js';

const ABOVE_2_53 = '9007199254740993';
const DIGITS_33 = '123456789012345678901234567890123';

describe('parseJsonExactly', () => {
  it('keeps integer literals above 2^53 digit for digit, as bigint', () => {
    const value = parseJsonExactly(`{"a":${ABOVE_2_53},"b":[-${DIGITS_33}],"c":42,"d":1.5,"e":"${ABOVE_2_53}"}`);
    expect(value).toEqual({ a: BigInt(ABOVE_2_53), b: [-BigInt(DIGITS_33)], c: 42, d: 1.5, e: ABOVE_2_53 });
  });

  it('parses everything else as JSON.parse does: floats, exponents, -0, duplicate keys, the reviver', () => {
    const text = `{"f":12345678901234567.5,"g":1e21,"h":-0,"dup":1,"dup":2,"big":${ABOVE_2_53},"s":"x"}`;
    const reviver = (key: string, value: unknown): unknown => (key === 's' ? 'revived' : value);
    const exact = parseJsonExactly(text, reviver) as Record<string, unknown>;
    const native = JSON.parse(text, reviver) as Record<string, unknown>;
    expect({ ...exact, big: null }).toEqual({ ...native, big: null });
    expect(Object.is(exact['h'], -0)).toBe(true);
  });

  it('keeps the digits of a line nested far deeper than lossless-json can recurse, without overflowing', () => {
    const depth = 10_000;
    expect(depth).toBeGreaterThan(LOSSLESS_MAX_DEPTH);
    const text = `${'['.repeat(depth)}${DIGITS_33}${']'.repeat(depth)}`;
    let value = parseJsonExactly(text);
    for (let i = 0; i < depth; i++) value = (value as unknown[])[0];
    expect(value).toBe(DIGITS_33);
  });

  it('throws a SyntaxError for text that is not JSON, with or without big integers', () => {
    expect(() => parseJsonExactly(`{"a":${ABOVE_2_53}`)).toThrow(SyntaxError);
    expect(() => parseJsonExactly('{"a":')).toThrow(SyntaxError);
  });
});

describe('parseCaptureLine keeps exact integers', () => {
  it('in our capture lines and in trail lines', () => {
    const ours = parseCaptureLine(
      `{"captured_at":"2025-06-01T10:01:00.000Z","event":"groups.update","data":[{"id":"1@g.us","size":${ABOVE_2_53}}]}`
    );
    const trail = parseCaptureLine(
      `{"timestamp":1748772060000,"event":"groups.update","data":[{"id":"1@g.us","creation":${DIGITS_33}}]}`
    );
    expect(ours).toMatchObject({ kind: 'record', record: { data: [{ size: BigInt(ABOVE_2_53) }] } });
    expect(trail).toMatchObject({ kind: 'record', record: { data: [{ creation: BigInt(DIGITS_33) }] } });
  });
});
