import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../common/json-value.js';
import { NotJsonError, measureJsonDepth, sanitizeRawJson } from '../../../ingest-api/sanitize.js';

const raw = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('sanitizeRawJson', () => {
  it('returns valid text unchanged, including valid surrogate pairs sent as escapes', () => {
    const text = '{"a":"caf\\u00e9 😀 \\ud83d\\ude00","n":12345678901234567890}';
    const result = sanitizeRawJson(raw(text));
    expect(result).toMatchObject({ text, isSanitized: false });
  });

  it('removes NUL from values and keys', () => {
    const result = sanitizeRawJson(raw('{"k\\u0000ey":"va\\u0000lue","list":["\\u0000"]}'));
    expect(result.isSanitized).toBe(true);
    expect(result.value).toEqual({ key: 'value', list: [''] });
    expect(result.text).not.toContain('\\u0000');
  });

  it('keeps a clean key and renames colliding sanitized keys with U+FFFD and a counter', () => {
    const result = sanitizeRawJson(raw('{"a\\u0000":1,"a":2,"\\u0000a":3}'));
    expect(result.value).toEqual({ a: 2, 'a\uFFFD1': 1, 'a\uFFFD2': 3 });
  });

  it('replaces lone high and low surrogates with U+FFFD', () => {
    const result = sanitizeRawJson(raw('{"h":"x\\ud800y","l":"\\udc00","end":"z\\ud83d"}'));
    expect(result.value).toEqual({ h: 'x\uFFFDy', l: '\uFFFD', end: 'z\uFFFD' });
    expect(result.isSanitized).toBe(true);
  });

  it('never joins two lone surrogates into a pair by removing the NUL between them', () => {
    const result = sanitizeRawJson(raw('{"t":"\\ud800\\u0000\\udc00","\\ud83d\\u0000\\ude00":1}'));
    expect(result.value).toEqual({ t: '\uFFFD\uFFFD', '\uFFFD\uFFFD': 1 });
  });

  it('names many keys that collide after sanitizing with successive counters, skipping names already taken', () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => `"a${'\\u0000'.repeat(i + 1)}":${i}`);
    const result = sanitizeRawJson(raw(`{${keys.join(',')},"a":"clean","a\\ufffd3":"taken"}`));
    const value = result.value as Record<string, JsonValue>;
    expect(Object.keys(value)).toHaveLength(2_002);
    expect(value).toMatchObject({ a: 'clean', 'a\uFFFD3': 'taken', 'a\uFFFD1': 0, 'a\uFFFD2': 1, 'a\uFFFD4': 2 });
    expect(value['a\uFFFD2000']).toBe(1_998);
    expect(value['a\uFFFD2001']).toBe(1_999);
  });

  it('replaces invalid UTF-8 bytes with U+FFFD and flags the result', () => {
    const body = Buffer.concat([raw('{"t":"a'), Buffer.from([0xff, 0xc3]), raw('b"}')]);
    const result = sanitizeRawJson(body);
    expect(result.isSanitized).toBe(true);
    expect((result.value as { t: string }).t).toBe('a\uFFFD\uFFFDb');
  });

  it('throws NotJsonError for text that is not JSON', () => {
    expect(() => sanitizeRawJson(raw('{"a":'))).toThrow(NotJsonError);
  });
});

describe('sanitizeRawJson on the sanitizing path', () => {
  const NUMBERS =
    '[12345678901234567890,-98765432109876543210.5,0.1000000000000000055511151231257827,1.0,-0,1e400,1E+2,2.5e-10]';

  it('copies every number token exactly and rewrites only the string that needs it', () => {
    const text = `{ "n" : ${NUMBERS} ,\n "s":"a\\u0000b" }`;
    const result = sanitizeRawJson(raw(text));
    expect(result.isSanitized).toBe(true);
    expect(result.text).toBe(`{ "n" : ${NUMBERS} ,\n "s":"ab" }`);
    expect(result.value).toEqual({
      n: JSON.parse(NUMBERS) as number[],
      s: 'ab',
    });
  });

  it('keeps numbers exact when keys lose NUL, collide, and lone surrogates are replaced in the same body', () => {
    const result = sanitizeRawJson(
      raw(`{"k\\u0000":1.0,"k":-0,"\\u0000k":${NUMBERS},"l":"\\ud800","p":"\\ud83d\\ude00"}`)
    );
    expect(result.isSanitized).toBe(true);
    expect(result.text).toBe(`{"k\uFFFD1":1.0,"k":-0,"k\uFFFD2":${NUMBERS},"l":"\uFFFD","p":"\\ud83d\\ude00"}`);
  });

  it('keeps numbers exact when invalid UTF-8 bytes are replaced, with or without escapes to remove', () => {
    const bytesOnly = Buffer.concat([raw('{"n":12345678901234567890,"t":"a'), Buffer.from([0xff]), raw('"}')]);
    expect(sanitizeRawJson(bytesOnly)).toMatchObject({
      text: '{"n":12345678901234567890,"t":"a\uFFFD"}',
      isSanitized: true,
    });
    const both = Buffer.concat([raw('{"n":1e400,"t":"\\u0000'), Buffer.from([0xc3, 0x28]), raw('","z":-0}')]);
    expect(sanitizeRawJson(both).text).toBe('{"n":1e400,"t":"\uFFFD(","z":-0}');
  });

  it('keeps __proto__ keys as ordinary keys without touching any prototype', () => {
    const result = sanitizeRawJson(raw('{"__proto__":{"polluted":"\\u0000"},"__pro\\u0000to__x":2}'));
    expect(result.text).toBe('{"__proto__":{"polluted":""},"__proto__x":2}');
    const value = result.value as { [key: string]: JsonValue };
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', '__proto__x']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: '' });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('gives a repeated sanitized key the same name, so the last value wins as for any duplicate key', () => {
    const result = sanitizeRawJson(raw('{"a":0,"a\\u0000":1,"a\\u0000":2}'));
    expect(result.text).toBe('{"a":0,"a\uFFFD1":1,"a\uFFFD1":2}');
    expect(result.value).toEqual({ a: 0, 'a\uFFFD1': 2 });
  });

  it('also cleans a value hidden by a later duplicate key, since the stored text still holds it', () => {
    const result = sanitizeRawJson(raw('{"p":{"x":"\\u0000"},"p":{"b":12345678901234567890}}'));
    expect(result).toMatchObject({ text: '{"p":{"x":""},"p":{"b":12345678901234567890}}', isSanitized: true });
    expect(result.value).toEqual({ p: { b: Number('12345678901234567890') } });
  });

  it('leaves escaped backslashes and quotes alone and reports no change when nothing was unstorable', () => {
    const text = '{"t":"\\\\u0000 \\"\\\\","n":1.0}';
    expect(sanitizeRawJson(raw(text))).toMatchObject({ text, isSanitized: false });
  });

  it('sanitizes hostile depth without overflowing the stack', () => {
    const depth = 100_000;
    const result = sanitizeRawJson(raw(`${'['.repeat(depth)}"\\u0000",1.0${']'.repeat(depth)}`));
    expect(result.text).toBe(`${'['.repeat(depth)}"",1.0${']'.repeat(depth)}`);
    expect(measureJsonDepth(result.value)).toBe(depth);
  });
});

describe('measureJsonDepth', () => {
  it('measures deep nesting without recursion', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as JsonValue;
    expect(measureJsonDepth(deep)).toBe(100_000);
    expect(measureJsonDepth({ a: [1] })).toBe(2);
  });
});
