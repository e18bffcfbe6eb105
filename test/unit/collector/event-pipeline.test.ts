import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRootLogger } from '../../../common/logger.js';
import { deriveEventId } from '../../../collector/event-id.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { normalizeItem } from '../../../collector/normalize/normalize-value.js';
import {
  CREDS_SECRET_MARKER,
  credsUpdate,
  decodedMessage,
  DM,
  GROUP,
  loadSample,
  NEWSLETTER,
  STATUS,
  textMessage,
  upsert,
} from '../../fixtures/collector/baileys-events.js';
import { openTempOutbox } from '../../fixtures/collector/temp-outbox.js';

const CAPTURED_AT = new Date('2026-01-02T03:04:05.678Z');

describe('EventPipeline', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  let logLines: string[];
  let pipeline: EventPipeline;
  const build = (limits?: { bodyLimitBytes: number; inlineBinaryLimitBytes: number }) =>
    new EventPipeline({
      outbox: temp.outbox,
      logger: createRootLogger({ level: 'trace', destination: { write: (line: string) => void logLines.push(line) } }),
      getSelfJid: () => '5500000000000:3@s.whatsapp.net',
      now: () => 42,
      ...(limits ? { limits } : {}),
    });

  beforeEach(() => {
    temp = openTempOutbox();
    logLines = [];
    pipeline = build();
  });
  afterEach(() => temp.cleanup());

  it('writes one row per kept item with the exact IngestBody text', () => {
    const sample = loadSample('01-messages-upsert-notify-text.json');
    const outcome = pipeline.handle(sample.baileys_event.name, sample.baileys_event.data, CAPTURED_AT);
    expect(outcome).toEqual({
      items: 1,
      kept: 1,
      dropped: {},
      inserted: 1,
      duplicates: 0,
      dead: 0,
      eventIds: ['7c301bfa-8af7-53a4-9bc3-8e9bcf75641d'],
    });
    const row = temp.outbox.get('7c301bfa-8af7-53a4-9bc3-8e9bcf75641d');
    const message = (sample.baileys_event.data as { messages: unknown[] }).messages[0];
    expect(row?.body).toBe(
      JSON.stringify({
        type: 'messages.upsert',
        chat_jid: GROUP,
        payload: message,
        captured_at: '2026-01-02T03:04:05.678Z',
        upsert_type: 'notify',
      })
    );
    expect(row).toMatchObject({ type: 'messages.upsert', chatJid: GROUP, state: 'pending', createdAt: 42 });
  });

  it('writes a live protobuf instance as plain JSON: numbers for Longs and enums, BufferJSON for bytes', () => {
    const live = decodedMessage({
      key: { remoteJid: GROUP, id: 'P1', participant: '100000000000001@lid' },
      messageTimestamp: 1700000000,
      message: { imageMessage: { mediaKey: Buffer.from([1, 2, 3]), fileLength: 2048 } },
    });
    const outcome = pipeline.handle('messages.upsert', { type: 'notify', messages: [live] }, CAPTURED_AT);
    const body = JSON.parse(temp.outbox.get(outcome.eventIds[0] ?? '')?.body ?? '{}') as {
      payload: Record<string, unknown>;
    };
    expect(body.payload).toMatchObject({
      messageTimestamp: 1700000000,
      message: { imageMessage: { mediaKey: { type: 'Buffer', data: 'AQID' }, fileLength: 2048 } },
    });
  });

  it('adds nothing when the same event arrives twice (idempotent at the source)', () => {
    const { name, data } = upsert([textMessage(GROUP, 'A1'), textMessage(GROUP, 'A2')]);
    pipeline.handle(name, data, CAPTURED_AT);
    const again = pipeline.handle(name, data, new Date());
    expect(again).toMatchObject({ kept: 2, inserted: 0, duplicates: 2 });
    expect(temp.outbox.countByState()).toEqual({ pending: 2, started: 0, dead: 0 });
  });

  it('fans a batch out per item and keeps DMs, status and newsletters out of the outbox and the logs', () => {
    const { name, data } = upsert([
      textMessage(DM, 'X1'),
      textMessage(GROUP, 'X2'),
      textMessage(STATUS, 'X3'),
      textMessage(NEWSLETTER, 'X4'),
    ]);
    const outcome = pipeline.handle(name, data, CAPTURED_AT);
    expect(outcome).toMatchObject({ items: 4, kept: 1, dropped: { not_group: 3 }, inserted: 1 });
    expect(temp.outbox.listDue(10, 100).map((row) => row.chatJid)).toEqual([GROUP]);
    const logs = logLines.join('');
    for (const secret of [DM, STATUS, NEWSLETTER, 'X1', 'X3', 'X4']) expect(logs).not.toContain(secret);
  });

  it('never lets creds.update content reach the outbox file or the logs', () => {
    const creds = credsUpdate();
    const outcome = pipeline.handle(creds.name, creds.data, CAPTURED_AT);
    const { name, data } = upsert([textMessage(GROUP, 'C1')]);
    pipeline.handle(name, data, CAPTURED_AT);
    expect(outcome).toMatchObject({ kept: 0, inserted: 0, eventIds: [] });
    expect(temp.outbox.countByState()).toEqual({ pending: 1, started: 0, dead: 0 });
    const logs = logLines.join('');
    expect(logs).not.toContain(CREDS_SECRET_MARKER);
    expect(logs).not.toContain(Buffer.from(CREDS_SECRET_MARKER).toString('base64'));
    expect(logs).not.toContain('noiseKey');
    temp.outbox.close();
    for (const file of [temp.path, `${temp.path}-wal`]) {
      const bytes = readFileSync(file, { flag: 'a+' });
      expect(bytes.includes(CREDS_SECRET_MARKER)).toBe(false);
    }
  });

  it('quarantines one unserializable item as dead with its reason and stores the rest of the batch', () => {
    const broken: Record<string, unknown> = textMessage(GROUP, 'B2');
    broken.self = broken;
    const { name, data } = upsert([textMessage(GROUP, 'B1'), broken, textMessage(GROUP, 'B3')]);
    const outcome = pipeline.handle(name, data, CAPTURED_AT);
    expect(outcome).toMatchObject({ kept: 3, inserted: 2, dead: 1 });
    const [dead] = temp.outbox.listDead(10);
    expect(dead?.lastError).toBe('cannot serialize value at self: circular reference');
    expect(JSON.parse(dead?.body ?? '')).toMatchObject({
      type: 'messages.upsert',
      chat_jid: GROUP,
      payload: { key: { id: 'B2' }, self: '[Circular]' },
    });
    expect(outcome.eventIds[1]).toBe(dead?.eventId);
    expect(
      logLines.some((line) => line.includes('item quarantined as dead') && line.includes(dead?.eventId ?? '?'))
    ).toBe(true);
    expect(pipeline.handle(name, data, CAPTURED_AT)).toMatchObject({ inserted: 0, duplicates: 3 });
  });

  it('quarantines an item whose getter throws, and keeps the rest of the batch', () => {
    const hostile = textMessage(GROUP, 'G2');
    Object.defineProperty(hostile, 'message', {
      enumerable: true,
      get: () => {
        throw new Error('getter failed');
      },
    });
    const { name, data } = upsert([hostile, textMessage(GROUP, 'G3')]);
    expect(pipeline.handle(name, data, CAPTURED_AT)).toMatchObject({ kept: 2, inserted: 1, dead: 1 });
    expect(temp.outbox.listDead(10)[0]?.lastError).toBe('normalization failed: Error: getter failed');
  });

  it('replaces inline binaries over 64 KiB by a marker after the event_id is derived', () => {
    const thumbnail = Buffer.alloc(100 * 1024, 7);
    const item = {
      key: { remoteJid: GROUP, id: 'I1' },
      update: { message: { imageMessage: { jpegThumbnail: thumbnail, mediaKey: Buffer.from([1, 2, 3]) } } },
    };
    const outcome = pipeline.handle('messages.update', [item], CAPTURED_AT);
    expect(outcome.eventIds[0]).toBe(
      deriveEventId({
        type: 'messages.update',
        chatJid: GROUP,
        item: normalizeItem('messages.update', item),
        selfJid: null,
      })
    );
    const body = JSON.parse(temp.outbox.get(outcome.eventIds[0] ?? '')?.body ?? '{}') as {
      payload: { update: { message: { imageMessage: unknown } } };
    };
    expect(body.payload.update.message.imageMessage).toEqual({
      jpegThumbnail: {
        omitted: true,
        sizeBytes: 102_400,
        sha256: createHash('sha256').update(thumbnail).digest('hex'),
      },
      mediaKey: { type: 'Buffer', data: Buffer.from([1, 2, 3]).toString('base64') },
    });
  });

  it('sends an item still over the body limit to dead with the reason', () => {
    pipeline = build({ bodyLimitBytes: 10_000, inlineBinaryLimitBytes: 64 * 1024 });
    const { name, data } = upsert([textMessage(GROUP, 'L1', 'é'.repeat(6_000)), textMessage(GROUP, 'L2')]);
    const outcome = pipeline.handle(name, data, CAPTURED_AT);
    expect(outcome).toMatchObject({ inserted: 1, dead: 1 });
    expect(temp.outbox.listDead(10)[0]?.lastError).toMatch(/^body of \d+ bytes is over the limit of 10000 bytes$/);
  });

  it('stores the sample snapshot once, even with participants reordered', () => {
    const sample = loadSample('12-groups-metadata-snapshot.json').baileys_event;
    const snapshot = sample.data as { participants: unknown[] };
    pipeline.handle(sample.name, snapshot, CAPTURED_AT);
    // `size` equal to the list: complete, so volatile (a partial list's size is part of the key).
    const reordered = { ...snapshot, participants: [...snapshot.participants].reverse(), size: 3 };
    expect(pipeline.handle(sample.name, reordered, CAPTURED_AT)).toMatchObject({ inserted: 0, duplicates: 1 });
  });

  it('stores history lid mappings as identity rows with a null chat, and drops history outside groups', () => {
    const outcome = pipeline.handle(
      'messaging-history.set',
      {
        chats: [],
        contacts: [],
        messages: [textMessage(DM, 'H1')],
        lidPnMappings: [{ lid: '1@lid', pn: '1@s.whatsapp.net' }],
      },
      CAPTURED_AT
    );
    expect(outcome).toMatchObject({ items: 2, kept: 1, dropped: { history_messages: 1 }, inserted: 1 });
    expect(temp.outbox.get(outcome.eventIds[0] ?? '')).toMatchObject({ type: 'lid-mapping.update', chatJid: null });
  });
});
