import { describe, expect, it } from 'vitest';
import {
  MAX_STORED_NUMBER_EXPONENT,
  STORED_NUMBER_EXPONENT_BUDGET,
  sanitizeRawJson,
} from '../../../ingest-api/sanitize.js';

const sanitize = (text: string) => sanitizeRawJson(Buffer.from(text, 'utf8'));

describe('numbers PostgreSQL cannot render cheaply (ADR 0014)', () => {
  it('keeps 1e131071 exactly, as a string, and marks the row sanitized', () => {
    const text = `{"payload":{"n":[${Array.from({ length: 3 }, () => '1e131071').join(',')}],"m":-2.5E-4000}}`;
    const result = sanitize(text);
    expect(result.isSanitized).toBe(true);
    expect(result.text).toBe('{"payload":{"n":["1e131071","1e131071","1e131071"],"m":"-2.5E-4000"}}');
    expect(result.value).toEqual({ payload: { n: ['1e131071', '1e131071', '1e131071'], m: '-2.5E-4000' } });
  });

  it(`keeps every number up to e${MAX_STORED_NUMBER_EXPONENT} as received, digit for digit`, () => {
    const text =
      '{"a":1e1000,"h":1e400,"b":1.0,"c":-5e-324,"d":123456789012345678901234567890,"e":"1e131071 in a string"}';
    expect(sanitize(text)).toMatchObject({ text, isSanitized: false });
  });

  it('keeps numbers with exponents of 100 or more as strings once the body spent its rendering budget', () => {
    const count = Math.floor(STORED_NUMBER_EXPONENT_BUDGET / 500) + 2;
    const result = sanitize(`{"n":[${Array.from({ length: count }, () => '1e500').join(',')},1e20]}`);
    const value = result.value as { n: unknown[] };
    expect(value.n.filter((n) => typeof n === 'number')).toHaveLength(count - 2 + 1);
    expect(value.n.slice(count - 2, count)).toEqual(['1e500', '1e500']);
    expect(result.isSanitized).toBe(true);
  });

  it('rewrites a huge number beside a string that needs sanitizing, both in one pass', () => {
    const result = sanitize('{"a":"x\\u0000y","b":9e99999}');
    expect(result).toMatchObject({ text: '{"a":"xy","b":"9e99999"}', isSanitized: true });
  });
});
