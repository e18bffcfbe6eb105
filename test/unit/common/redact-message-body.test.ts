import { describe, expect, it } from 'vitest';
import {
  InvalidParticipantIdentifierError,
  parseParticipantIdentifier,
} from '../../../common/participant-identifier.js';
import { redactMessageBody } from '../../../common/redact-message-body.js';
import { jidPatternSource, jidUsers } from '../../../common/whatsapp-jid.js';

describe('redactMessageBody', () => {
  const reply = {
    key: { remoteJid: '120363000000000001@g.us', id: 'A1', participant: '100000000000001@lid' },
    messageTimestamp: 1748772060,
    pushName: 'Member 1',
    message: {
      extendedTextMessage: {
        text: 'secret words',
        contextInfo: {
          stanzaId: 'A0',
          participant: '100000000000002@lid',
          quotedMessage: { conversation: 'quoted secret' },
        },
      },
      messageContextInfo: { messageSecret: { type: 'Buffer', data: 'AQEB' } },
    },
  };

  it('drops text, quotes and secrets but keeps ids, times, participants, kind and reply target', () => {
    const redacted = redactMessageBody('messages.upsert', reply) as typeof reply;
    const text = JSON.stringify(redacted);
    for (const secret of ['secret words', 'quoted secret', 'AQEB']) expect(text).not.toContain(secret);
    expect(redacted.key).toEqual(reply.key);
    expect(redacted.messageTimestamp).toBe(1748772060);
    expect(redacted.pushName).toBe('Member 1');
    expect(Object.keys(redacted.message)).toEqual(['extendedTextMessage', 'messageContextInfo', '_redacted']);
    expect(redacted.message.extendedTextMessage.contextInfo).toMatchObject({
      stanzaId: 'A0',
      participant: '100000000000002@lid',
    });
  });

  it('keeps a scalar kind (conversation) as a key, and drops the sender name on erasure', () => {
    const redacted = redactMessageBody(
      'messages.upsert',
      { ...reply, message: { conversation: 'hello' } },
      { dropSenderName: true }
    ) as Record<string, unknown>;
    expect(redacted['message']).toEqual({ conversation: null, _redacted: true });
    expect(redacted).not.toHaveProperty('pushName');
  });

  it('leaves stubs and other event types untouched', () => {
    const stub = { key: reply.key, messageStubType: 27, messageStubParameters: ['{"id":"1@lid"}'] };
    expect(redactMessageBody('messages.upsert', stub)).toEqual(stub);
    const metadata = { id: '120363000000000001@g.us', subject: 'Group' };
    expect(redactMessageBody('groups.metadata', metadata)).toBe(metadata);
  });
});

describe('parseParticipantIdentifier', () => {
  it.each([
    ['+55 (11) 98765-4321', '5511987654321@s.whatsapp.net'],
    ['5511987654321:7@s.whatsapp.net', '5511987654321@s.whatsapp.net'],
    ['5511987654321@c.us', '5511987654321@s.whatsapp.net'],
    ['100000000000001@lid', '100000000000001@lid'],
  ])('reads %s as %s', (input, jid) => {
    expect(parseParticipantIdentifier(input).jids).toEqual([jid]);
  });

  it('refuses a group JID or a name', () => {
    expect(() => parseParticipantIdentifier('120363000000000001@g.us')).toThrow(InvalidParticipantIdentifierError);
    expect(() => parseParticipantIdentifier('Maria')).toThrow(InvalidParticipantIdentifierError);
  });

  it('matches the JIDs with any device suffix, and not a longer number that contains them', () => {
    const pattern = new RegExp(jidPatternSource(jidUsers(['5511987654321@s.whatsapp.net'])));
    expect(pattern.test('"5511987654321:12@s.whatsapp.net"')).toBe(true);
    expect(pattern.test('"5511987654321@lid"')).toBe(true);
    expect(pattern.test('"95511987654321@s.whatsapp.net"')).toBe(false);
  });
});
