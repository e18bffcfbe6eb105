import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectPinnedResults, type PinnedResult } from '../../fixtures/collector/pinned-events.js';

const expected = JSON.parse(
  readFileSync(new URL('../../fixtures/collector/pinned-events.expected.json', import.meta.url), 'utf8')
) as PinnedResult[];

describe('EventPipeline pinned output', () => {
  const actual = collectPinnedResults();

  it('covers the same pinned events as the recorded expectations', () => {
    expect(actual.map((result) => result.label)).toEqual(expected.map((result) => result.label));
  });

  it.each(expected.map((result, index) => [result.label, index] as const))(
    'keeps every event_id, state and body of "%s" byte for byte',
    (_label, index) => {
      expect(actual[index]).toEqual(expected[index]);
    }
  );
});
