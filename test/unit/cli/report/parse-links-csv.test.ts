import { describe, expect, it } from 'vitest';
import { LinksCsvError, parseLinksCsv } from '../../../../cli/report/parse-links-csv.js';

describe('parseLinksCsv (wa-lake members import)', () => {
  it('reads the named columns in any order, with quotes, CRLF, a BOM and extra columns ignored', () => {
    const csv =
      '\uFEFFname,note,member_id,participant_id\r\n"Ana, the first",x,discord:1,100000000000001@lid\r\n' +
      ' ,y,"disc""2",5500000000002@s.whatsapp.net\n\n';
    expect(parseLinksCsv(csv)).toEqual([
      { participantId: '100000000000001@lid', memberId: 'discord:1', name: 'Ana, the first' },
      { participantId: '5500000000002@s.whatsapp.net', memberId: 'disc"2' },
    ]);
  });

  it('reads a file without a name column as links without names (ADR 0020)', () => {
    expect(parseLinksCsv('participant_id,member_id\n100000000000001@lid,discord:1\n')).toEqual([
      { participantId: '100000000000001@lid', memberId: 'discord:1' },
    ]);
  });

  it('refuses a file without the header or a row without both values, naming the line', () => {
    expect(() => parseLinksCsv('a,b\n1,2\n')).toThrow(LinksCsvError);
    expect(() => parseLinksCsv('participant_id,member_id\n100000000000001@lid,\n')).toThrow(/line 2/);
  });

  it('refuses a participant linked to two member ids, naming both lines (blank lines counted)', () => {
    const csv =
      'participant_id,member_id\n100000000000001@lid,discord:1\n\n200000000000002@lid,discord:2\n100000000000001@lid,discord:3\n';
    expect(() => parseLinksCsv(csv)).toThrow(
      'lines 2 and 5: participant 100000000000001@lid is linked to two member ids (discord:1, discord:3)'
    );
  });

  it('refuses a member id holding a tab or a newline, naming the line, and returns no link', () => {
    const csv =
      'participant_id,member_id\n100000000000001@lid,discord:1\n200000000000002@lid,"tab\tand"\n' +
      '300000000000003@lid,"new\nline"\n';
    let error: unknown;
    try {
      parseLinksCsv(csv);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LinksCsvError);
    expect((error as LinksCsvError).problems).toEqual([
      'line 3: member_id holds the control character U+0009 at character 4; a member id is one line of printable text',
      'line 4: member_id holds the control character U+000A at character 4; a member id is one line of printable text',
    ]);
  });

  it('keeps a participant listed twice with the same member id once', () => {
    const csv = 'participant_id,member_id\n100000000000001@lid,discord:1\n100000000000001@lid,discord:1\n';
    expect(parseLinksCsv(csv)).toEqual([{ participantId: '100000000000001@lid', memberId: 'discord:1' }]);
  });

  it('stores participants as canonical JIDs, like members link, and refuses one that is not a participant', () => {
    const csv = 'participant_id,member_id\n5511987654321@c.us,discord:1\n100000000000001:7@lid,discord:2\n';
    expect(parseLinksCsv(csv)).toEqual([
      { participantId: '5511987654321@s.whatsapp.net', memberId: 'discord:1' },
      { participantId: '100000000000001@lid', memberId: 'discord:2' },
    ]);
    expect(() => parseLinksCsv('participant_id,member_id\n100000000000001@lid,discord:1\ngarbage,discord:2\n')).toThrow(
      /line 3: participant_id must be a LID/
    );
  });

  it('names every line whose name or member id is longer than the 255 characters a link holds', () => {
    const csv =
      'participant_id,member_id,name\n' +
      `100000000000001@lid,discord:1,${'n'.repeat(256)}\n` +
      `100000000000002@lid,${'m'.repeat(300)},Ana\n` +
      `100000000000004@lid,discord:4,${'é'.repeat(255)}\n`;
    expect(() => parseLinksCsv(csv)).toThrow(LinksCsvError);
    try {
      parseLinksCsv(csv);
    } catch (err) {
      expect((err as LinksCsvError).problems).toEqual([
        'line 2: name has 256 characters, more than the 255 a link holds',
        'line 3: member_id has 300 characters, more than the 255 a link holds',
      ]);
    }
  });
});
