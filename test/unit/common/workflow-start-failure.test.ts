import { describe, expect, it } from 'vitest';
import { grpcCodeOf, isRowLevelStartFailure } from '../../../common/workflow-start-failure.js';

describe('grpcCodeOf', () => {
  it('finds the numeric code on the error or down its cause chain, at most four deep', () => {
    expect(grpcCodeOf(Object.assign(new Error('x'), { code: 14 }))).toBe(14);
    expect(grpcCodeOf(new Error('wrapped', { cause: new Error('inner', { cause: { code: 3 } }) }))).toBe(3);
    const deep = { cause: { cause: { cause: { cause: { code: 8 } } } } };
    expect(grpcCodeOf(deep)).toBeUndefined();
    expect(grpcCodeOf(Object.assign(new Error('deadline'), { code: 'ETIMEDOUT' }))).toBeUndefined();
  });
});

describe('isRowLevelStartFailure', () => {
  it('refuses one start for INVALID_ARGUMENT and RESOURCE_EXHAUSTED, and reads anything else as Temporal down', () => {
    expect([3, 8].map(isRowLevelStartFailure)).toEqual([true, true]);
    expect([14, 4, undefined].map(isRowLevelStartFailure)).toEqual([false, false, false]);
  });
});
