import { describe, expect, it } from 'vitest';
import { deadLetterListHeader } from '../../../cli/commands/dlq.js';
import { countNoun } from '../../../cli/count-noun.js';
import { formatGeneratedAt } from '../../../cli/report/render-html.js';
import { shortenAtWord } from '../../../cli/shorten-at-word.js';

// The small slips of CLI output ("1 links", excerpts cut mid-word, a filter that was not given).
describe('CLI text for people', () => {
  it('counts with the noun in the right number', () => {
    expect(countNoun(1, 'link')).toBe('1 link');
    expect(countNoun(2, 'link')).toBe('2 links');
    expect(countNoun(0, 'row')).toBe('0 rows');
    expect(countNoun(1, 'alias', 'aliases')).toBe('1 alias');
    expect(countNoun(3, 'alias', 'aliases')).toBe('3 aliases');
  });

  it('shortens an excerpt at the end of a whole word, on one line', () => {
    const excerpt = 'the ingest API refused the body:\n  field "payload" is not a JSON object at all';
    const short = shortenAtWord(excerpt, 40);
    expect(short).toBe('the ingest API refused the body: field…');
    expect([...short].length).toBeLessThanOrEqual(40);
    expect(shortenAtWord('short one', 40)).toBe('short one');
    expect(shortenAtWord('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('heads dlq list with what the page is part of, naming no filter that was not given', () => {
    const entries = (n: number): unknown[] => Array.from({ length: n }, () => ({}));
    expect(deadLetterListHeader({ total: 1, unresolvedCount: 1, entries: entries(1) }, false)).toBe(
      '1 open dead letter'
    );
    expect(deadLetterListHeader({ total: 120, unresolvedCount: 120, entries: entries(50) }, false)).toBe(
      '120 open dead letters; this page shows 50'
    );
    expect(deadLetterListHeader({ total: 3, unresolvedCount: 1, entries: entries(3) }, true)).toBe(
      '3 dead letters (1 open)'
    );
    expect(deadLetterListHeader({ total: 0, unresolvedCount: 0, entries: [] }, false)).toBe(
      'no open dead letters (--all shows resolved ones)'
    );
    for (const header of [
      deadLetterListHeader({ total: 2, unresolvedCount: 2, entries: entries(2) }, false),
      deadLetterListHeader({ total: 2, unresolvedCount: 0, entries: entries(2) }, true),
    ])
      expect(header).not.toContain('filter');
  });

  it('writes the report’s generation time to the minute in its time zone', () => {
    const at = new Date('2026-12-03T21:19:42.123Z');
    expect(formatGeneratedAt(at, 'America/Sao_Paulo')).toBe('2026-12-03 18:19 (America/Sao_Paulo)');
    expect(formatGeneratedAt(at, 'UTC')).toBe('2026-12-03 21:19 (UTC)');
  });
});
