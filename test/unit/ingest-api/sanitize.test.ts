import { describe, expect, it } from 'vitest';
import { NotJsonError, measureJsonDepth, sanitizeRawJson, type JsonValue } from '../../../ingest-api/sanitize.js';

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

describe('measureJsonDepth', () => {
  it('measures deep nesting without recursion', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as JsonValue;
    expect(measureJsonDepth(deep)).toBe(100_000);
    expect(measureJsonDepth({ a: [1] })).toBe(2);
  });
});
