import { describe, expect, it } from 'vitest';
import { extractAcks } from '../../../../collector/send/ack-router.js';

describe('extractAcks', () => {
  it('maps WAMessageStatus of our own messages in messages.update: 2 sent, 3 delivered, 4/5 read, 0 failed', () => {
    const update = (id: string, status: number, fromMe = true): unknown => ({
      key: { id, fromMe, remoteJid: '5511999990001@s.whatsapp.net' },
      update: { status },
    });
    expect(
      extractAcks('messages.update', [
        update('A', 2),
        update('B', 3),
        update('C', 4),
        update('D', 5),
        update('E', 0),
        update('F', 1),
        update('G', 3, false),
      ])
    ).toEqual([
      { waMessageId: 'A', status: 'sent' },
      { waMessageId: 'B', status: 'delivered' },
      { waMessageId: 'C', status: 'read' },
      { waMessageId: 'D', status: 'read' },
      { waMessageId: 'E', status: 'failed' },
    ]);
  });

  it('maps group receipts: a read or played time is read, a receipt time is delivered', () => {
    const receipt = (id: string, receiptFields: Record<string, number>): unknown => ({
      key: { id, fromMe: true, remoteJid: '120363000000000001@g.us' },
      receipt: { userJid: '100000000000001@lid', ...receiptFields },
    });
    expect(
      extractAcks('message-receipt.update', [
        receipt('A', { receiptTimestamp: 1 }),
        receipt('B', { readTimestamp: 2 }),
        receipt('C', { playedTimestamp: 3 }),
        receipt('D', {}),
      ])
    ).toEqual([
      { waMessageId: 'A', status: 'delivered' },
      { waMessageId: 'B', status: 'read' },
      { waMessageId: 'C', status: 'read' },
    ]);
  });

  it('ignores other events and malformed data', () => {
    expect(extractAcks('messages.upsert', [{ key: { id: 'A', fromMe: true }, update: { status: 2 } }])).toEqual([]);
    expect(extractAcks('messages.update', { not: 'an array' })).toEqual([]);
  });
});
