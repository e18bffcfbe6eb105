import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventPipeline } from '../../../../collector/event-pipeline.js';
import { extractAcks } from '../../../../collector/send/ack-router.js';
import { GROUP } from '../../../fixtures/collector/baileys-events.js';
import { openTempOutbox } from '../../../fixtures/collector/temp-outbox.js';

// ACKs of messages this account sent are routed to their send workflow by signal only;
// they never enter the lake, in groups either. Status items about other members' messages keep their
// architecture.md §3 behaviour (kept as `messages.update` of a group).

const CAPTURED_AT = new Date('2026-01-02T03:04:05.678Z');
const ownAck = (id: string, status: number) => ({ key: { remoteJid: GROUP, id, fromMe: true }, update: { status } });

describe('status items of our own messages', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  let pipeline: EventPipeline;
  beforeEach(() => {
    temp = openTempOutbox();
    pipeline = new EventPipeline({ outbox: temp.outbox, logger: pino({ level: 'silent' }), getSelfJid: () => null });
  });
  afterEach(() => temp.cleanup());

  it('a group messages.update ACK of a message we sent yields no outbox row, yet the ACK router still sees it', () => {
    const data = [ownAck('3EB0AAAAAAAAAAAAAAAAAA', 2), ownAck('3EB0AAAAAAAAAAAAAAAAAA', 3)];
    const outcome = pipeline.handle('messages.update', data, CAPTURED_AT);
    expect(outcome).toMatchObject({ kept: 0, inserted: 0, dropped: { own_message_ack: 2 } });
    expect(temp.outbox.countByState()).toEqual({ pending: 0, started: 0, dead: 0 });
    expect(extractAcks('messages.update', data).map((ack) => ack.status)).toEqual(['sent', 'delivered']);
  });

  it('a group read receipt of a message we sent yields no outbox row either', () => {
    const data = [
      { key: { remoteJid: GROUP, id: '3EB0B', fromMe: true }, receipt: { userJid: 'x@lid', readTimestamp: 1 } },
    ];
    expect(pipeline.handle('message-receipt.update', data, CAPTURED_AT).inserted).toBe(0);
    expect(temp.outbox.countByState().pending).toBe(0);
    expect(extractAcks('message-receipt.update', data)).toEqual([{ waMessageId: '3EB0B', status: 'read' }]);
  });

  it('keeps a status item about another member’s message, and an edit of our own message, as before', () => {
    const othersStatus = {
      key: { remoteJid: GROUP, id: '3EB0C', fromMe: false, participant: '1@lid' },
      update: { status: 4 },
    };
    const ownEdit = {
      key: { remoteJid: GROUP, id: '3EB0D', fromMe: true },
      update: { message: { editedMessage: { message: { conversation: 'fixed' } } }, status: 2 },
    };
    const outcome = pipeline.handle('messages.update', [othersStatus, ownEdit, ownAck('3EB0E', 2)], CAPTURED_AT);
    expect(outcome).toMatchObject({ kept: 2, inserted: 2, dropped: { own_message_ack: 1 } });
    expect(temp.outbox.countByState().pending).toBe(2);
  });
});
