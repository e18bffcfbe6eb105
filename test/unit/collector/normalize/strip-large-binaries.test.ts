import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../../../../collector/normalize/normalize-value.js';
import { stripLargeBinaries } from '../../../../collector/normalize/strip-large-binaries.js';

const LIMIT = 64 * 1024;

describe('stripLargeBinaries', () => {
  it('replaces binaries over the limit by {omitted, sizeBytes, sha256} and keeps smaller ones', () => {
    const big = Buffer.alloc(LIMIT + 1, 1);
    const small = Buffer.alloc(LIMIT, 2);
    const payload = normalizeValue({ a: { big }, list: [small, big] });
    const marker = { omitted: true, sizeBytes: LIMIT + 1, sha256: createHash('sha256').update(big).digest('hex') };
    expect(stripLargeBinaries(payload, LIMIT)).toEqual({
      a: { big: marker },
      list: [{ type: 'Buffer', data: small.toString('base64') }, marker],
    });
  });

  it('returns the same value when nothing is over the limit', () => {
    const payload = normalizeValue({ key: { id: 'x' }, thumb: Buffer.alloc(10) });
    expect(stripLargeBinaries(payload, LIMIT)).toBe(payload);
  });

  it('counts decoded bytes exactly for every base64 padding', () => {
    for (const size of [LIMIT + 1, LIMIT + 2, LIMIT + 3]) {
      expect(stripLargeBinaries(normalizeValue({ b: Buffer.alloc(size) }), LIMIT)).toMatchObject({
        b: { sizeBytes: size },
      });
    }
  });
});
