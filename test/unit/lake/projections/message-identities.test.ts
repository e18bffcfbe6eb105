import { describe, expect, it } from 'vitest';
import { extractMessageIdentities } from '../../../../lake/projections/message-identities.js';

const GROUP = '120363000000000001@g.us';
const LID = '20000000000001@lid';
const PN = '10000000001@s.whatsapp.net';
const pair = (lid: string, phoneJid: string) => ({ participantId: lid, lid, phoneJid, role: null });
const lone = (id: string) => ({
  participantId: id,
  lid: id.endsWith('@lid') ? id : null,
  phoneJid: id.endsWith('@s.whatsapp.net') ? id : null,
  role: null,
});

describe('extractMessageIdentities', () => {
  it('reads a message with key.participant (LID) with key.participantAlt (phone)', () => {
    expect(
      extractMessageIdentities({
        key: { remoteJid: GROUP, id: '3EB0A0000000000000006', participant: LID, participantAlt: PN },
        message: { conversation: 'hello' },
      })
    ).toEqual([pair(LID, PN)]);
  });

  it('reads reaction keys, contextInfo, remoteJidAlt, *Pn, callerPn and participant objects', () => {
    const found = extractMessageIdentities({
      key: { remoteJid: '30000000000001@lid', remoteJidAlt: '30000000001@s.whatsapp.net', id: 'X' },
      reaction: { key: { participant: '40000000000001@lid', participantAlt: '40000000001@s.whatsapp.net' } },
      message: {
        extendedTextMessage: {
          contextInfo: { participant: '50000000000001@lid', participantAlt: '50000000001@s.whatsapp.net' },
        },
      },
      author: '60000000000001@lid',
      authorPn: '60000000001@s.whatsapp.net',
      offer: { from: '70000000000001@lid', callerPn: '70000000001@s.whatsapp.net' },
      participants: [{ id: '80000000000001@lid', phoneNumber: '80000000001@s.whatsapp.net' }],
    });
    expect(found).toEqual(
      expect.arrayContaining([
        pair('30000000000001@lid', '30000000001@s.whatsapp.net'),
        pair('40000000000001@lid', '40000000001@s.whatsapp.net'),
        pair('50000000000001@lid', '50000000001@s.whatsapp.net'),
        pair('60000000000001@lid', '60000000001@s.whatsapp.net'),
        pair('70000000000001@lid', '70000000001@s.whatsapp.net'),
        pair('80000000000001@lid', '80000000001@s.whatsapp.net'),
      ])
    );
  });

  it('keeps a lone sender, ignores group JIDs, and makes no alias of two LIDs', () => {
    expect(extractMessageIdentities({ key: { remoteJid: GROUP, participant: LID }, message: {} })).toEqual([lone(LID)]);
    expect(extractMessageIdentities({ key: { remoteJid: GROUP, participant: LID, participantAlt: '2@lid' } })).toEqual([
      lone(LID),
    ]);
    expect(extractMessageIdentities({ key: { remoteJid: GROUP, id: 'A' }, message: { conversation: PN } })).toEqual([]);
  });
});
