import { describe, expect, it } from 'vitest';
import { UnserializableValueError } from '../../../../collector/normalize/errors.js';
import { BufferJSON, proto } from '../../../../collector/normalize/baileys-helpers.js';
import { normalizeItem, normalizeValue } from '../../../../collector/normalize/normalize-value.js';
import { decodedLong } from '../../../fixtures/collector/baileys-events.js';

function circular(): unknown {
  const node: Record<string, unknown> = {};
  node.self = node;
  return { nested: node };
}

describe('normalizeValue', () => {
  describe('protobuf Long', () => {
    const timestamp = 1_700_000_000;
    it.each([
      ['a Long instance (as protobufjs decodes it)', decodedLong(timestamp)],
      ['a {low, high, unsigned} object', { low: timestamp, high: 0, unsigned: true }],
      ['a {low, high} object', { low: timestamp, high: 0 }],
      ['a decimal string under a Long field', String(timestamp)],
      ['a bigint', BigInt(timestamp)],
      ['a number', timestamp],
    ])('gives the same safe integer for %s', (_label, value) => {
      expect(normalizeValue({ messageTimestamp: value })).toEqual({ messageTimestamp: timestamp });
    });

    it('keeps values beyond 2^53 exact as decimal strings, signed and unsigned', () => {
      expect(normalizeValue({ fileLength: decodedLong({ low: -1, high: -1, unsigned: true }) })).toEqual({
        fileLength: '18446744073709551615',
      });
      expect(normalizeValue({ fileLength: { low: -1, high: -1, unsigned: false } })).toEqual({ fileLength: -1 });
      expect(normalizeValue({ fileLength: '9007199254740993' })).toEqual({ fileLength: '9007199254740993' });
      expect(normalizeValue({ x: { low: 0, high: -2147483648, unsigned: false } })).toEqual({
        x: '-9223372036854775808',
      });
    });

    it('leaves a decimal string alone outside Long fields (text stays text)', () => {
      expect(normalizeValue({ conversation: '1700000000' })).toEqual({ conversation: '1700000000' });
    });
  });

  describe('bytes', () => {
    const bytes = [0, 1, 2, 250, 255];
    const tagged = BufferJSON.replacer('', Buffer.from(bytes)) as unknown;
    it.each([
      ['a Buffer', Buffer.from(bytes)],
      ['a Uint8Array', new Uint8Array(bytes)],
      ['a Uint8Array view into a larger buffer', new Uint8Array([9, ...bytes, 9]).subarray(1, 6)],
      ['{type: Buffer, data: number[]}', JSON.parse(JSON.stringify(Buffer.from(bytes))) as unknown],
      ['the BufferJSON tagged form', JSON.parse(JSON.stringify(Buffer.from(bytes), BufferJSON.replacer)) as unknown],
      ['an index-keyed object', JSON.parse(JSON.stringify(new Uint8Array(bytes))) as unknown],
    ])('gives the BufferJSON form of Baileys for %s', (_label, value) => {
      const normalized = normalizeValue({ mediaKey: value });
      expect(normalized).toEqual({ mediaKey: tagged });
      const revived = JSON.parse(JSON.stringify(normalized), BufferJSON.reviver) as { mediaKey: Buffer };
      expect([...revived.mediaKey]).toEqual(bytes);
    });

    it('does not take an object with non-byte or non-contiguous index keys for bytes', () => {
      expect(normalizeValue({ x: { '0': 1, '2': 3 } })).toEqual({ x: { '0': 1, '2': 3 } });
      expect(normalizeValue({ x: { '0': 300 } })).toEqual({ x: { '0': 300 } });
    });
  });

  describe('proto enums', () => {
    it('turns enum names into numbers and keeps numbers', () => {
      expect(normalizeValue({ messageStubType: 'CIPHERTEXT' })).toEqual({
        messageStubType: proto.WebMessageInfo.StubType.CIPHERTEXT,
      });
      expect(normalizeValue({ messageStubType: 2 })).toEqual({ messageStubType: 2 });
      expect(normalizeValue({ message: { protocolMessage: { type: 'REVOKE' } } })).toEqual({
        message: { protocolMessage: { type: 0 } },
      });
      expect(normalizeValue({ status: 'READ' })).toEqual({ status: proto.WebMessageInfo.Status.READ });
    });

    it('leaves strings that are not a name of the enum of the field alone', () => {
      expect(normalizeValue({ status: 'offer' })).toEqual({ status: 'offer' });
      expect(normalizeValue({ other: { type: 'REVOKE' } })).toEqual({ other: { type: 'REVOKE' } });
    });
  });

  describe('with the WAProto schema (normalizeItem)', () => {
    it('reads enum names, 64-bit strings and base64 bytes by field type at any depth', () => {
      const trail = {
        key: { remoteJid: 'g@g.us', id: 'X', participantAlt: 'p' },
        messageStubType: 'REVOKE',
        message: { imageMessage: { imageSourceType: 'AI_MODIFIED', fileSha256: 'AQID', fileLength: '12' } },
      };
      expect(normalizeItem('messages.upsert', trail)).toEqual({
        key: { remoteJid: 'g@g.us', id: 'X', participantAlt: 'p' },
        messageStubType: 1,
        message: { imageMessage: { imageSourceType: 2, fileSha256: { type: 'Buffer', data: 'AQID' }, fileLength: 12 } },
      });
    });

    it('leaves a string in a bytes field alone when it is not base64, and unknown enum names as strings', () => {
      expect(
        normalizeItem('messages.upsert', {
          message: { imageMessage: { fileSha256: 'not base64!', imageSourceType: 'FUTURE_SOURCE' } },
        })
      ).toEqual({
        message: { imageMessage: { fileSha256: 'not base64!', imageSourceType: 'FUTURE_SOURCE' } },
      });
    });

    it('types the reaction, update and delete item shapes', () => {
      expect(
        normalizeItem('messages.reaction', {
          key: { id: 'T' },
          reaction: { text: '👍', senderTimestampMs: '1700000200000' },
        })
      ).toEqual({ key: { id: 'T' }, reaction: { text: '👍', senderTimestampMs: 1700000200000 } });
      expect(normalizeItem('messages.update', { key: { id: 'T' }, update: { status: 'READ' } })).toEqual({
        key: { id: 'T' },
        update: { status: 4 },
      });
    });

    it('leaves untyped items (group events) to the field-name rules', () => {
      expect(normalizeItem('groups.update', { id: 'g@g.us', subject: 'READ', status: 'offer' })).toEqual({
        id: 'g@g.us',
        subject: 'READ',
        status: 'offer',
      });
    });
  });

  it('drops undefined keys, functions and symbols, and keeps null', () => {
    expect(normalizeValue({ a: undefined, b: null, c: () => 1, d: Symbol('x'), e: [undefined, 1] })).toEqual({
      b: null,
      e: [null, 1],
    });
  });

  it('turns Dates, Errors, Maps and Sets into JSON-safe forms', () => {
    const error = Object.assign(new Error('boom'), { code: 'E_X' });
    expect(
      normalizeValue({ date: new Date(Date.UTC(2024, 0, 2)), error, map: new Map([['k', 1]]), set: new Set(['a']) })
    ).toEqual({
      date: '2024-01-02T00:00:00.000Z',
      error: { name: 'Error', message: 'boom', code: 'E_X' },
      map: { k: 1 },
      set: ['a'],
    });
  });

  it('walks own fields of protobuf message instances, not their enum-name toJSON', () => {
    const message = proto.WebMessageInfo.fromObject({
      key: { remoteJid: 'g@g.us', id: 'X' },
      messageStubType: 2,
      messageTimestamp: 1700000000,
    });
    expect(normalizeValue(message)).toMatchObject({
      key: { remoteJid: 'g@g.us', id: 'X' },
      messageStubType: 2,
      messageTimestamp: 1700000000,
    });
  });

  it('keeps a shared (non-circular) object twice', () => {
    const shared = { id: 'x' };
    expect(normalizeValue({ a: shared, b: shared })).toEqual({ a: { id: 'x' }, b: { id: 'x' } });
  });

  it.each([
    ['a circular reference', circular(), 'nested.self'],
    ['a non-finite number', { a: { b: Number.NaN } }, 'a.b'],
    ['an invalid date', { when: new Date('nope') }, 'when'],
  ])('throws UnserializableValueError with the path for %s', (_label, value, path) => {
    expect(() => normalizeValue(value)).toThrow(UnserializableValueError);
    expect(() => normalizeValue(value)).toThrow(expect.objectContaining({ path }) as Error);
  });
});
