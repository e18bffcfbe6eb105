import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportMessageIdNames } from '../../../../lake/chat-export/export-message-rows.js';
import { parseChatExport } from '../../../../lake/chat-export/parse-chat-export.js';

const FIXTURES = new URL('../../../fixtures/chat-exports/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
const GROUP = '120363000000030099@g.us';
const NOW = new Date('2026-01-01T12:00:00Z');

describe('exportMessageIdNames (ADR 0023)', () => {
  it('keys a message on its minute as written, so no time zone can make it new', () => {
    const [name] = exportMessageIdNames(GROUP, parseChatExport(fixture('android-en-12h.txt'), { now: NOW }).messages);
    expect(name).toMatch(/^export\.message\|120363000000030099@g\.us\|Ana\|2021-01-05T09:20\|[0-9a-f]{64}\|0$/);
  });

  it('strips the "edited" marker from the text before the digest and keeps the message as edited', () => {
    const { messages } = parseChatExport(fixture('edited-marker.txt'), { now: NOW });
    expect(messages.map((message) => [message.text, message.kind])).toEqual([
      ['Meeting at 10', 'edited'],
      ['Reunião às 10', 'edited'],
      ['Meeting at 10', 'text'],
    ]);
    const [edited, , plain] = exportMessageIdNames(GROUP, messages);
    // The same text in a minute as written: only the minute tells the two apart, never the marker.
    expect(edited?.split('|')[4]).toBe(plain?.split('|')[4]);
  });
});
