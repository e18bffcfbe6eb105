import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DateOrderConflictError, DateOrderContradictionError } from '../../../../lake/chat-export/date-order.js';
import { MAX_EXPORTED_MESSAGE_BYTES, parseChatExport } from '../../../../lake/chat-export/parse-chat-export.js';

const FIXTURES = new URL('../../../fixtures/chat-exports/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
const NOW = new Date('2026-01-01T12:00:00Z');
const parse = (text: string, options: Parameters<typeof parseChatExport>[1] = {}) =>
  parseChatExport(text, { now: NOW, ...options });
const wallClocks = (text: string, options: Parameters<typeof parseChatExport>[1] = {}) =>
  parse(text, options).messages.map((message) => message.wallClock);

describe('parseChatExport: dates as written (ADR 0023)', () => {
  it('keeps a month-first file month-first when one garbled date would read day-first, and skips impossible dates', () => {
    const parsed = parse(fixture('month-first-impossible-dates.txt'));
    expect(parsed.dateOrder).toMatchObject({ order: 'month-first', basis: 'dates', monthFirstOnly: 2 });
    expect(parsed.messages.map((message) => message.wallClock)).toEqual(['2025-05-26T09:00:00', '2025-05-27T09:02:00']);
    expect(parsed.unreadable).toEqual([
      { line: 2, reason: 'impossible date' },
      { line: 4, reason: 'impossible date' },
    ]);
  });

  it('never rolls 31 February over to March', () => {
    const parsed = parse(fixture('day-first-31-february.txt'));
    expect(parsed.messages.map((message) => message.wallClock)).toEqual(['2025-01-30T10:00:00']);
    expect(parsed.unreadable).toEqual([{ line: 2, reason: 'impossible date' }]);
  });

  it('reports a date that exists only in the order the rest of the file does not use', () => {
    const parsed = parse(fixture('mostly-day-first.txt'));
    expect(parsed.dateOrder).toMatchObject({ order: 'day-first', dayFirstOnly: 2, monthFirstOnly: 1 });
    expect(parsed.unreadable).toEqual([{ line: 3, reason: "impossible date in the file's day/month order" }]);
  });

  it('says the order was assumed when every date exists both ways, and --date-order decides it', () => {
    const text = fixture('ambiguous-dates.txt');
    expect(parse(text).dateOrder.basis).toBe('assumed');
    expect(wallClocks(text, { dateOrder: 'month-first' })).toEqual(['2025-01-02T10:00:00', '2025-01-03T10:00:00']);
    expect(wallClocks(text, { dateOrder: 'day-first' })).toEqual(['2025-02-01T10:00:00', '2025-03-01T10:00:00']);
    expect(parse(text, { dateOrder: 'day-first' }).dateOrder.basis).toBe('option');
  });

  it('refuses to guess when as many dates exist only day-first as only month-first', () => {
    const text = '13/01/2025 10:00 - Ana: a\n01/13/2025 10:00 - Bea: b\n';
    expect(() => parse(text)).toThrow(DateOrderConflictError);
    expect(() => parse(text, { dateOrder: 'day-first' })).toThrow(/neither order fits every date/);
  });

  it('refuses --date-order when any date exists only in the other order, naming the order that fits', () => {
    const text = ['01/07/2025 10:00 - Ana: both ways', '13/07/2025 10:00 - Bea: day-first only', ''].join('\n');
    const refused = (): unknown => parse(text, { dateOrder: 'month-first' });
    expect(refused).toThrow(DateOrderContradictionError);
    expect(refused).toThrow(
      '--date-order month-first contradicts the file: 1 of its dates exist only day-first (the first on line 2), ' +
        'so nothing was imported; its dates fit day-first'
    );
    expect(wallClocks(text, { dateOrder: 'day-first' })).toEqual(['2025-07-01T10:00:00', '2025-07-13T10:00:00']);
  });

  it('reads an impossible time or one dated after now (a day of tolerance) as unreadable', () => {
    const parsed = parse(
      [
        '30/12/2025 25:00 - Ana: no hour 25',
        '30/12/2025 13:00 PM - Ana: no 13 PM',
        '30/12/2025 09:60 - Ana: no minute 60',
        '02/01/2026 11:59 - Ana: within a day of now',
        '03/01/2026 12:01 - Ana: in the future',
      ].join('\n')
    );
    expect(parsed.messages.map((message) => message.wallClock)).toEqual(['2026-01-02T11:59:00']);
    expect(parsed.unreadable.map((line) => line.reason)).toEqual([
      'impossible time',
      'impossible time',
      'impossible time',
      'in the future',
    ]);
  });

  it('reads 12-hour clocks around noon and midnight and a year written first', () => {
    expect(wallClocks('1/13/25, 12:05 AM - Ana: a\n1/13/25, 12:05 PM - Ana: b\n2025-01-14 23:59 - Ana: c\n')).toEqual([
      '2025-01-13T00:05:00',
      '2025-01-13T12:05:00',
      '2025-01-14T23:59:00',
    ]);
  });
});

describe('parseChatExport: iOS system lines under the group name (ADR 0023)', () => {
  const senders = (text: string, options: Parameters<typeof parseChatExport>[1] = {}) =>
    parse(text, options).messages.map((message) => `${message.sender}: ${message.text}`);

  it.each([
    ['ios-en-group-author.txt', 4, ['Alice: Welcome Bob', 'Alice: Carl left early, he will join later']],
    ['ios-ptbr-group-author.txt', 4, ['Alice: Bem-vindo, Bob']],
    ['ios-en-older-notice.txt', 2, ['Alice: Hi all']],
  ])('reads %s: the notice’s author is the group, its event lines are system lines', (file, system, messages) => {
    const parsed = parse(fixture(file));
    expect(parsed.systemLines).toBe(system);
    expect(senders(fixture(file))).toEqual(messages);
  });

  it('takes lines under the lake’s subject of the group as system lines, even with no notice in the file', () => {
    const text = '[5/1/24, 9:01:00 AM] Trail club: Alice added Bob\n[5/1/24, 9:02:00 AM] Alice: Welcome Bob\n';
    expect(senders(text)).toEqual(['Trail club: Alice added Bob', 'Alice: Welcome Bob']);
    expect(senders(text, { groupSubjects: ['Trail club'] })).toEqual(['Alice: Welcome Bob']);
  });

  it('leaves an Android file’s authored lines alone: Android writes system lines without an author', () => {
    const text = '5/1/24, 9:00 AM - Trail club: Alice added Bob\n5/1/24, 9:01 AM - Alice: Hi\n';
    expect(senders(text)).toEqual(['Trail club: Alice added Bob', 'Alice: Hi']);
  });
});

describe('parseChatExport: a message too large to store', () => {
  it('reports a text over the ingest body limit as an unreadable line and keeps the rest', () => {
    const huge = 'é'.repeat(MAX_EXPORTED_MESSAGE_BYTES / 2);
    const parsed = parse(
      `1/13/25 10:00 - Ana: before\n1/13/25 10:01 - Bea: ${huge}\nmore\n1/13/25 10:02 - Ana: after\n`
    );
    expect(parsed.unreadable).toEqual([{ line: 2, reason: 'message text over 4 MiB' }]);
    expect(parsed.messages.map((message) => message.text)).toEqual(['before', 'after']);
  });
});

describe('parseChatExport: lines', () => {
  it('counts lines as written: a final line break starts no line, an empty text has none', () => {
    expect(parse('1/13/25 10:00 - Ana: a\n1/13/25 10:01 - Ana: b\n').lines).toBe(2);
    expect(parse('1/13/25 10:00 - Ana: a\n1/13/25 10:01 - Ana: b').lines).toBe(2);
    expect(parse('1/13/25 10:00 - Ana: a\n\n').lines).toBe(2);
    expect(parse('').lines).toBe(0);
  });
});
