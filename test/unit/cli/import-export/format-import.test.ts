import { describe, expect, it } from 'vitest';
import { formatImport, formatSenders } from '../../../../cli/commands/import-export.js';
import { parseChatExport } from '../../../../lake/chat-export/parse-chat-export.js';
import type { ChatExportImport } from '../../../../lake/index.js';

const imported = (text: string): ChatExportImport => {
  const parsed = parseChatExport(text, { now: new Date('2026-01-01T00:00:00Z') });
  return {
    lines: parsed.lines,
    messages: parsed.messages.length,
    byKind: { text: parsed.messages.length, edited: 0, media: 0, deleted: 0 },
    systemLines: parsed.systemLines,
    unreadable: parsed.unreadable,
    inserted: parsed.messages.length,
    timeZone: 'UTC',
    earlierTimeZones: [],
    dateOrder: parsed.dateOrder,
    groupSubject: parsed.groupName,
    replacedReadings: [],
  };
};

describe('wa-lake import-export output', () => {
  it('counts the lines of the file as written and labels the days as the group’s', () => {
    const lines = formatImport(
      'export.txt',
      { text: '', media: {}, chatEntry: null },
      imported('5/27/25, 9:00 AM - Ana: hi\n5/27/25, 9:0 - broken header\n'),
      [
        { day: '2025-05-27', messages: 1, isObserved: false },
        { day: '2025-05-28', messages: 3, isObserved: true },
      ]
    );
    expect(lines[0]).toContain('export.txt: 2 lines, 1 message (1 text');
    expect(lines).toContain('  line 2: impossible time');
    expect(lines).toContain('days of this group counted from exports: 2025-05-27');
    expect(lines).toContain('days of this group the lake observed (exported messages not counted): 2025-05-28');
  });

  it('says when messages were imported before with their times read in another zone', () => {
    const again = { ...imported('5/27/25, 9:00 AM - Ana: hi\n'), inserted: 0 };
    again.earlierTimeZones = [{ timeZone: 'America/Sao_Paulo', messages: 1 }];
    const lines = formatImport('export.txt', { text: '', media: {}, chatEntry: null }, again, []);
    expect(lines).toContain('stored 0 new messages, 1 already in the lake');
    expect(lines).toContain(
      'note: 1 message of this file was imported before with times read in America/Sao_Paulo, not UTC; they keep ' +
        "those times (the first import's zone wins)"
    );
  });

  it('says how many messages of the earlier reading of the file in the other date order it replaced', () => {
    const again = {
      ...imported('1/2/09 10:00 - Ana: hi\n'),
      replacedReadings: [{ dateOrder: 'day-first' as const, messages: 1 }],
    };
    const lines = formatImport('export.txt', { text: '', media: {}, chatEntry: null }, again, []);
    expect(lines).toContain(
      'replaced 1 message an earlier import of this file stored with dates read day-first: the lake counts this ' +
        'reading only'
    );
  });

  it('says messages where it counts messages, and senders where it counts senders', () => {
    const senders = {
      messagesBy: { phone: 3, unresolved: 5 },
      unresolved: [
        { sender: 'Bob', participantKey: 'name:Bob', messages: 4 },
        { sender: 'Cy', participantKey: 'name:Cy', messages: 1 },
      ],
    };
    expect(formatSenders(senders, false)).toEqual([
      'exported messages of this group by how their sender resolved: 3 phone, 5 unresolved',
      '  2 senders unresolved (5 messages): --unresolved lists them',
    ]);
    expect(formatSenders(senders, true)[2]).toBe("  Cy (1 message): wa-lake members link 'name:Cy' MEMBER_ID");
  });
});
