import { Writable } from 'node:stream';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { AckRouter, extractAcks } from '../../../../collector/send/ack-router.js';

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

/** A client whose every signal rejects with `error`, counting the calls. */
function rejectingClient(error: Error): { client: Client; signals: () => number } {
  let count = 0;
  const signal = (): Promise<void> => {
    count += 1;
    return Promise.reject(error);
  };
  const client = { workflow: { getHandle: () => ({ signal }) } } as unknown as Client;
  return { client, signals: () => count };
}

function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const readAck = [
  { key: { id: '3EB0AAA', fromMe: true, remoteJid: '5511970000001@s.whatsapp.net' }, update: { status: 4 } },
];

describe('AckRouter', () => {
  it('drops an ACK for a workflow that has ended at the first answer, without a warning', async () => {
    vi.useFakeTimers();
    try {
      const { client, signals } = rejectingClient(
        new WorkflowNotFoundError('workflow execution already completed', 'send-1', undefined)
      );
      const { logger, lines } = capturingLogger();
      new AckRouter({ client, lookup: () => 'message-1', logger }).handle('messages.update', readAck);
      await vi.runAllTimersAsync();
      expect(signals()).toBe(1);
      expect(lines.join('')).not.toContain('cannot route ack');
    } finally {
      vi.useRealTimers();
    }
  });

  it('retries another failure and warns once it gives up', async () => {
    vi.useFakeTimers();
    try {
      const { client, signals } = rejectingClient(Object.assign(new Error('unavailable'), { code: 14 }));
      const { logger, lines } = capturingLogger();
      new AckRouter({ client, lookup: () => 'message-1', logger }).handle('messages.update', readAck);
      await vi.runAllTimersAsync();
      expect(signals()).toBe(3);
      expect(lines.join('')).toContain('cannot route ack to its send workflow');
    } finally {
      vi.useRealTimers();
    }
  });
});
