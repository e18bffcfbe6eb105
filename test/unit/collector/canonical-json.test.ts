import { describe, expect, it } from 'vitest';
import { canonicalJson, compareCodePoints } from '../../../collector/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys by UTF-16 code unit at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { z: 1, y: 2 }] } })).toBe(
      '{"a":{"c":[3,{"y":2,"z":1}],"d":2},"b":1}'
    );
    expect(canonicalJson({ é: 1, z: 2, Z: 3 })).toBe('{"Z":3,"z":2,"é":1}');
  });

  it('sorts arrays of objects that all have an id by id, and keeps other arrays in order', () => {
    expect(canonicalJson([{ id: 'b' }, { id: 'a' }])).toBe('[{"id":"a"},{"id":"b"}]');
    expect(canonicalJson([{ id: 'b' }, { name: 'a' }])).toBe('[{"id":"b"},{"name":"a"}]');
    expect(canonicalJson(['b', 'a'])).toBe('["b","a"]');
  });

  it('orders ids by code point, not UTF-16 unit and not locale', () => {
    // U+FF21 (fullwidth A) is below U+1F600 as a code point, but its UTF-16 unit 0xFF21 is above 0xD83D.
    const astral = '\u{1F600}';
    const fullwidth = '\uFF21';
    expect(astral < fullwidth).toBe(true);
    expect(compareCodePoints(fullwidth, astral)).toBeLessThan(0);
    expect(canonicalJson([{ id: astral }, { id: fullwidth }])).toBe(`[{"id":"${fullwidth}"},{"id":"${astral}"}]`);
    expect(canonicalJson([{ id: 'ä' }, { id: 'z' }])).toBe('[{"id":"z"},{"id":"ä"}]');
  });

  it('makes strings and keys well-formed (lone surrogates become U+FFFD)', () => {
    expect(canonicalJson({ ['k\uD800']: 'v\uDC00' })).toBe(canonicalJson({ ['k\uFFFD']: 'v\uFFFD' }));
    expect(canonicalJson('\u{1F600}')).toBe('"\u{1F600}"');
  });

  it('leaves out keys the omit predicate selects, at any depth', () => {
    expect(
      canonicalJson(
        { a: 1, pushName: 'x', key: { participantAlt: 'y', id: 'z' } },
        (key) => key === 'pushName' || key.endsWith('Alt')
      )
    ).toBe('{"a":1,"key":{"id":"z"}}');
  });
});
