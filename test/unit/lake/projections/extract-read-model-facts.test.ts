import { describe, expect, it } from 'vitest';
import { extractReadModelFacts } from '../../../../lake/projections/extract-read-model-facts.js';
import type { JsonValue } from '../../../../common/json-value.js';

const GROUP = '120363000000000001@g.us';
const at = new Date('2024-01-01T00:00:00Z');
const facts = (type: string, payload: JsonValue) => extractReadModelFacts({ type, payload, effectiveAt: at });
const key = (id: string) => ({
  remoteJid: GROUP,
  id,
  participant: '5500000000001@s.whatsapp.net',
  participantAlt: '100000000000001@lid',
});

describe('extractReadModelFacts', () => {
  it('reads a reply with mentions as a text message from the LID-first sender', () => {
    const result = facts('messages.upsert', {
      key: key('M1'),
      message: { extendedTextMessage: { text: 'hi', contextInfo: { stanzaId: 'M0', mentionedJid: ['a', 'b', 'c'] } } },
    });
    expect(result.records).toEqual([
      expect.objectContaining({
        messageId: 'M1',
        kind: 'text',
        senderId: '100000000000001@lid',
        replyToId: 'M0',
        mentionCount: 3,
      }),
    ]);
  });

  it('keeps non-message ids as non-messages and turns them into edits, revokes and reactions', () => {
    const edit = facts('messages.upsert', {
      key: key('E1'),
      message: { protocolMessage: { type: 14, key: { id: 'M1' }, timestampMs: '1704067200999' } },
    });
    expect(edit.records[0]?.kind).toBe('edit');
    expect(edit.edits).toEqual([{ chatJid: GROUP, targetId: 'M1', editedAtMs: 1704067200000 }]);
    const revoke = facts('messages.upsert', {
      key: key('R1'),
      message: { protocolMessage: { type: 0, key: { id: 'M1' } } },
    });
    expect(revoke.records[0]?.kind).toBe('revoke');
    expect(revoke.revokes).toEqual([
      { chatJid: GROUP, targetId: 'M1', deletedAt: at, revokeId: 'R1', targetSenderId: '100000000000001@lid' },
    ]);
    const adminRevoke = facts('messages.upsert', {
      key: key('R2'),
      message: { protocolMessage: { type: 0, key: { id: 'M2', participant: '20000000000302:3@lid' } } },
    });
    expect(adminRevoke.revokes[0]).toMatchObject({ revokeId: 'R2', targetSenderId: '20000000000302@lid' });
    const vote = facts('messages.upsert', { key: key('V1'), message: { pollUpdateMessage: { vote: {} } } });
    expect(vote.records[0]?.kind).toBe('poll_vote');
    expect(
      facts('messages.upsert', { key: key('S1'), messageStubType: 27, messageStubParameters: ['x'] }).records
    ).toEqual([]);
  });

  it('ignores chats that are not groups', () => {
    const dm = { ...key('D1'), remoteJid: '5500000000009@s.whatsapp.net' };
    expect(facts('messages.upsert', { key: dm, message: { conversation: 'x' } }).records).toEqual([]);
  });
});

describe('extractReadModelFacts on history copies (ADR 0016)', () => {
  const revokeStub = {
    key: key('M9'),
    messageTimestamp: 1704067200,
    messageStubType: 1,
    revokeMessageTimestamp: 1704070800,
  };

  it('takes a REVOKE stub from history as a placeholder the live content outranks, deleted at its revoke time', () => {
    const result = extractReadModelFacts({
      type: 'messages.upsert',
      payload: revokeStub,
      effectiveAt: at,
      source: 'history',
    });
    expect(result.records).toEqual([expect.objectContaining({ messageId: 'M9', kind: 'revoked', rank: 1 })]);
    expect(result.revokes).toEqual([{ chatJid: GROUP, targetId: 'M9', deletedAt: new Date('2024-01-01T01:00:00Z') }]);
  });

  it('keeps a live merged revoke above the message it deletes', () => {
    const merged: Record<string, JsonValue> = { ...revokeStub };
    delete merged['revokeMessageTimestamp'];
    const result = facts('messages.upsert', merged);
    expect(result.records).toEqual([expect.objectContaining({ kind: 'revoked', rank: 3 })]);
    expect(result.revokes).toEqual([{ chatJid: GROUP, targetId: 'M9', deletedAt: at }]);
  });
});
