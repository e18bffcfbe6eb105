import { describe, expect, it, vi } from 'vitest';
import { SimulatedWhatsApp } from '../../../../cli/demo-send/simulated-whatsapp.js';

const GROUP = '120363000000000101@g.us';
const LOSSY = '5511900000010@s.whatsapp.net';
const SLOW = '5511900000020@s.whatsapp.net';
const UNKNOWN = '5511900000030@s.whatsapp.net';

function setup() {
  const whatsapp = new SimulatedWhatsApp({
    self: { id: '5500000000009:12@s.whatsapp.net', lid: '100000000000009:12@lid' },
    groups: {},
    behaviours: new Map([
      [LOSSY, 'lost_ack'],
      [SLOW, 'slow_first_send'],
      [UNKNOWN, 'not_on_whatsapp'],
    ] as const),
    slowSendMs: 1_000,
    ackStepMs: 10,
  });
  const events: Array<{ event: string; data: unknown }> = [];
  return { whatsapp, events };
}

async function open(whatsapp: SimulatedWhatsApp, events: Array<{ event: string; data: unknown }>) {
  const { socket } = await whatsapp.socketFactory();
  socket.ev.process((batch) => {
    for (const [event, data] of Object.entries(batch)) events.push({ event, data });
  });
  await vi.waitFor(() => expect(whatsapp.connected).toBe(true));
  return socket;
}

const statuses = (events: Array<{ event: string; data: unknown }>, event: string) =>
  events.filter((e) => e.event === event).length;

describe('SimulatedWhatsApp (demo-send)', () => {
  it('ACKs a group message (server ack as messages.update, receipts as message-receipt.update), never a lost-ACK one', async () => {
    const { whatsapp, events } = setup();
    const socket = await open(whatsapp, events);
    await socket.sendMessage!(GROUP, { text: 'hi', linkPreview: null }, { messageId: '3EB0A' });
    await socket.sendMessage!(LOSSY, { text: 'lost', linkPreview: null }, { messageId: '3EB0B' });
    await vi.waitFor(() => expect(statuses(events, 'message-receipt.update')).toBe(2));
    expect(statuses(events, 'messages.update')).toBe(1);
    expect(JSON.stringify(events)).not.toContain('3EB0B');
    expect(whatsapp.wire.map((send) => send.messageId)).toEqual(['3EB0A', '3EB0B']);
    whatsapp.close();
  });

  it('puts a slow first send on the wire before the call returns; the retry with the same id is normal', async () => {
    const { whatsapp, events } = setup();
    const socket = await open(whatsapp, events);
    let isFirstDone = false;
    void socket.sendMessage!(SLOW, { text: 'code', linkPreview: null }, { messageId: '3EB0C' }).then(
      () => (isFirstDone = true)
    );
    await vi.waitFor(() => expect(whatsapp.wire).toHaveLength(1));
    await socket.sendMessage!(SLOW, { text: 'code', linkPreview: null }, { messageId: '3EB0C' });
    expect(isFirstDone).toBe(false);
    expect(whatsapp.wire).toHaveLength(2);
    whatsapp.close();
  });

  it('says an unknown number is not on WhatsApp, refuses sends while disconnected, and hands held ACKs over on reopen', async () => {
    const { whatsapp, events } = setup();
    const socket = await open(whatsapp, events);
    expect(await socket.onWhatsApp!(UNKNOWN, GROUP)).toEqual([
      { jid: UNKNOWN, exists: false },
      { jid: GROUP, exists: true },
    ]);
    await socket.sendMessage!(LOSSY, { text: 'late', linkPreview: null }, { messageId: '3EB0D' });
    whatsapp.disconnect(50);
    await expect(
      socket.sendMessage!(GROUP, { text: 'x', linkPreview: null }, { messageId: '3EB0E' })
    ).rejects.toMatchObject({
      output: { statusCode: 428 },
    });
    expect(whatsapp.ack('3EB0D', 'sent')).toBe(true);
    const reopened = await whatsapp.socketFactory();
    const later: Array<{ event: string; data: unknown }> = [];
    reopened.socket.ev.process((batch) => {
      for (const [event, data] of Object.entries(batch)) later.push({ event, data });
    });
    await vi.waitFor(() => expect(JSON.stringify(later)).toContain('3EB0D'));
    whatsapp.close();
  });
});
