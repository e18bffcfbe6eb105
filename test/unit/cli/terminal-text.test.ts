import { describe, expect, it } from 'vitest';
import { toTerminalLine, toTerminalText } from '../../../cli/terminal-text.js';

// eslint-disable-next-line no-control-regex -- the test looks for control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** What a group admin or a webhook receiver can put in a subject, push name, member id or answer (ADR 0014). */
const PAYLOADS: [string, string][] = [
  ['clear screen', '\u001b[2J\u001b[3J\u001b[H'],
  ['OSC 52 clipboard write', '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\u0007'],
  ['one-character C1 CSI', '\u009b2J'],
  ['title change ended by ST', '\u001b]0;pwned\u001b\\'],
  ['bidi override', 'abc\u202edcba'],
  ['backspace and DEL', 'ok\b\b\u007f'],
];

describe('toTerminalText', () => {
  it.each(PAYLOADS)('shows a %s as visible escapes the terminal cannot act on', (_name, payload) => {
    const shown = toTerminalText(`Book club ${payload}`);
    expect(shown).not.toMatch(CONTROL);
    expect(shown.startsWith('Book club ')).toBe(true);
    // Nothing is lost: the escapes decode back to the bytes received.
    const decoded = shown.replace(/\\u([0-9a-f]{4})/g, (_escape, hex: string) =>
      String.fromCharCode(parseInt(hex, 16))
    );
    expect(decoded).toBe(`Book club ${payload}`);
  });

  it('escapes tabs and line breaks inside a field, so it cannot forge a column or a line', () => {
    expect(toTerminalText('a\tb\nc\rd')).toBe('a\\u0009b\\u000ac\\u000dd');
  });

  it('leaves ordinary text, accents and emoji alone', () => {
    expect(toTerminalText('Grupo São Paulo 👍 مرحبا')).toBe('Grupo São Paulo 👍 مرحبا');
  });
});

describe('toTerminalLine', () => {
  it('keeps our own tabs and line breaks and escapes the rest', () => {
    expect(toTerminalLine('id\tname \u001b[2J\nnext')).toBe('id\tname \\u001b[2J\nnext');
  });

  it('keeps a JSON line valid and exact: DEL, C1 and bidi characters become their JSON escapes', () => {
    const value = { subject: 'x\u009b2J\u007f\u202e', excerpt: '\u001b]52;c;AA==\u0007' };
    const line = toTerminalLine(JSON.stringify(value));
    expect(line).not.toMatch(CONTROL);
    expect(JSON.parse(line)).toEqual(value);
  });
});
