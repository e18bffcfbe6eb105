import { describe, expect, it } from 'vitest';
import { canonicalParticipantJid } from '../../../common/participant-identifier.js';
import { canonicalParticipantKey, phoneDigitsOfNumber } from '../../../common/whatsapp-jid.js';

describe('canonicalParticipantKey', () => {
  it('drops the device suffix of a LID and of a phone JID (ADR 0019)', () => {
    expect(canonicalParticipantKey('20000000000993:3@lid')).toBe('20000000000993@lid');
    expect(canonicalParticipantKey('5500000000993:12@s.whatsapp.net')).toBe('5500000000993@s.whatsapp.net');
  });

  it('writes c.us as s.whatsapp.net and drops an agent suffix', () => {
    expect(canonicalParticipantKey('5500000000993@c.us')).toBe('5500000000993@s.whatsapp.net');
    expect(canonicalParticipantKey('5500000000993_1:2@s.whatsapp.net')).toBe('5500000000993@s.whatsapp.net');
  });

  it('leaves canonical JIDs, group JIDs and other text as they are', () => {
    for (const value of ['20000000000993@lid', '120363000000000001@g.us', 'status@broadcast', 'a:b', ''])
      expect(canonicalParticipantKey(value)).toBe(value);
  });

  it('is the rule members link reads participants by', () => {
    expect(canonicalParticipantJid(' 20000000000993:3@lid ', 'participant')).toBe('20000000000993@lid');
  });
});

describe('phoneDigitsOfNumber', () => {
  it('reads + and the international prefix 00 alike, with spaces, dots, dashes and brackets', () => {
    for (const typed of ['+55 11 90000-0702', '0055 11 900000702', '00 55 (11) 90000.0702', '5511900000702'])
      expect(phoneDigitsOfNumber(typed)).toBe('5511900000702');
    expect(canonicalParticipantJid('0055 11 900000702', 'participant')).toBe('5511900000702@s.whatsapp.net');
  });

  it('refuses a national number, too few or too many digits, and text', () => {
    for (const typed of ['011 98765-4321', '+55 11', '+1234567890123456', '5511a00000702', '55+11900000702'])
      expect(phoneDigitsOfNumber(typed)).toBeUndefined();
  });
});
