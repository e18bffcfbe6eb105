import { makeEventBuffer, proto } from '@whiskeysockets/baileys';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filterEvent } from '../../../collector/edge-filter.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { splitHistoryPush, withParticipant } from '../../../collector/history-items.js';
import { createRootLogger } from '../../../common/logger.js';
import {
  decodedMessage,
  DM,
  GROUP,
  MEMBER_LID,
  MEMBER_PN,
  STATUS,
  stubMessage,
  textMessage,
} from '../../fixtures/collector/baileys-events.js';
import { historyPush } from '../../fixtures/collector/history-push.js';
import { openTempOutbox } from '../../fixtures/collector/temp-outbox.js';

const CAPTURED_AT = new Date('2026-01-02T03:04:05.678Z');
const OTHER_LID = '100000000000002@lid';
const OTHER_PN = '5500000000002@s.whatsapp.net';

/** A reaction `OTHER_LID` gave to `targetId`, as history's `WebMessageInfo.reactions` holds it. */
const historyReaction = (targetId: string, text: string) => ({
  key: { remoteJid: GROUP, fromMe: false, id: `R-${targetId}`, participant: OTHER_LID },
  text,
  senderTimestampMs: 1700000100000,
});

/** The same reaction as Baileys emits it live (`process-message.js`: `{reaction: {…, key}, key: target}`). */
const liveReaction = (targetId: string, text: string) => ({
  key: { remoteJid: GROUP, fromMe: false, id: targetId, participant: MEMBER_LID },
  reaction: { ...historyReaction(targetId, text) },
});

const revokeProtocol = (id: string, targetId: string) => ({
  key: { remoteJid: GROUP, fromMe: false, id, participant: MEMBER_LID },
  messageTimestamp: 1700000300,
  message: { protocolMessage: { key: { remoteJid: GROUP, fromMe: false, id: targetId }, type: 0 } },
});
const editProtocol = (id: string, targetId: string) => ({
  key: { remoteJid: GROUP, fromMe: false, id, participant: MEMBER_LID },
  messageTimestamp: 1700000400,
  message: {
    protocolMessage: {
      key: { remoteJid: GROUP, fromMe: true, id: targetId },
      type: 14,
      editedMessage: { conversation: 'edited' },
      timestampMs: 1700000400123,
    },
  },
});
const addedStub = stubMessage(GROUP, 'STUB-1', 27, [JSON.stringify({ id: OTHER_LID, phoneNumber: OTHER_PN })]);

describe('splitHistoryPush', () => {
  it('keeps group messages, stubs and reactions of the push and counts the messages outside groups', () => {
    const push = historyPush([
      { id: GROUP, messages: [{ ...textMessage(GROUP, 'H1'), reactions: [historyReaction('H1', '👍')] }, addedStub] },
      { id: DM, messages: [textMessage(DM, 'D1'), textMessage(DM, 'D2')] },
      { id: STATUS, messages: [textMessage(STATUS, 'S1')] },
    ]);
    const { items, outsideGroups } = splitHistoryPush(push);
    expect(items.map((item) => item.type)).toEqual(['messages.upsert', 'messages.reaction', 'messages.upsert']);
    expect(outsideGroups).toBe(3);
    expect(JSON.stringify(items)).not.toContain(DM);
  });

  it('fills a missing key.participant from the message or participantAlt, and participantAlt from the push mapping', () => {
    const forms = new Map([
      [MEMBER_PN, MEMBER_LID],
      [MEMBER_LID, MEMBER_PN],
    ]);
    const bare = { key: { remoteJid: GROUP, fromMe: false, id: 'P1' }, participant: MEMBER_PN };
    expect(withParticipant(bare, forms)['key']).toEqual({
      remoteJid: GROUP,
      fromMe: false,
      id: 'P1',
      participant: MEMBER_PN,
      participantAlt: MEMBER_LID,
    });
    const lidOnly = { key: { remoteJid: GROUP, fromMe: false, id: 'P2', participant: MEMBER_LID } };
    expect(withParticipant(lidOnly, forms)['key']).toMatchObject({
      participant: MEMBER_LID,
      participantAlt: MEMBER_PN,
    });
    const altOnly = { key: { remoteJid: GROUP, fromMe: false, id: 'P3', participantAlt: OTHER_PN } };
    expect(withParticipant(altOnly, new Map())['key']).toEqual({
      remoteJid: GROUP,
      fromMe: false,
      id: 'P3',
      participant: OTHER_PN,
    });
    const complete = textMessage(GROUP, 'P4');
    expect(withParticipant(complete, forms)).toBe(complete);
    const own = { key: { remoteJid: GROUP, fromMe: true, id: 'P5' }, participant: MEMBER_PN };
    expect(withParticipant(own, forms)).toBe(own);
  });
});

describe('filterEvent on messaging-history.set', () => {
  it('marks the items of a push history, and of an ON_DEMAND answer on_demand', () => {
    const message = { id: GROUP, messages: [textMessage(GROUP, 'H1')] };
    const pushed = filterEvent('messaging-history.set', historyPush([message]));
    expect(pushed.kept.map((item) => item.source)).toEqual(['history']);
    const asked = filterEvent(
      'messaging-history.set',
      historyPush([message], { syncType: proto.HistorySync.HistorySyncType.ON_DEMAND })
    );
    expect(asked.kept.map((item) => item.source)).toEqual(['on_demand']);
  });
});

describe('EventPipeline with history (ADR 0016)', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  const pipelineOf = (mode?: 'live' | 'replay') =>
    new EventPipeline({
      outbox: temp.outbox,
      logger: createRootLogger({ level: 'silent' }),
      getSelfJid: () => '5500000000000:3@s.whatsapp.net',
      ...(mode ? { mode } : {}),
    });
  beforeEach(() => (temp = openTempOutbox()));
  afterEach(() => temp.cleanup());

  it('gives a history copy the event_id of its live copy: message, reaction, revoke, edit and group stub', () => {
    const live = pipelineOf();
    const liveIds = [
      ...live.handle(
        'messages.upsert',
        {
          type: 'notify',
          messages: [textMessage(GROUP, 'H1'), revokeProtocol('D1', 'H0'), editProtocol('E1', 'H1'), addedStub].map(
            decodedMessage
          ),
        },
        CAPTURED_AT
      ).eventIds,
      ...live.handle('messages.reaction', [liveReaction('H1', '🔥')], CAPTURED_AT).eventIds,
    ];
    const history = historyPush([
      {
        id: GROUP,
        messages: [
          { ...textMessage(GROUP, 'H1'), reactions: [historyReaction('H1', '🔥')] },
          revokeProtocol('D1', 'H0'),
          editProtocol('E1', 'H1'),
          addedStub,
        ],
      },
    ]);
    const outcome = pipelineOf().handle('messaging-history.set', history, CAPTURED_AT);
    expect(outcome).toMatchObject({ kept: 5, inserted: 0, duplicates: 5 });
    expect(new Set(outcome.eventIds)).toEqual(new Set(liveIds));
  });

  it('writes the source into the body without changing the event_id; a replayed push is still history', () => {
    const history = historyPush([{ id: GROUP, messages: [textMessage(GROUP, 'H1')] }]);
    const [historyId] = pipelineOf().handle('messaging-history.set', history, CAPTURED_AT).eventIds;
    const body = JSON.parse(temp.outbox.get(historyId ?? '')?.body ?? '{}') as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'messages.upsert', chat_jid: GROUP, source: 'history' });

    const other = openTempOutbox();
    try {
      const replay = new EventPipeline({
        outbox: other.outbox,
        logger: createRootLogger({ level: 'silent' }),
        getSelfJid: () => null,
        mode: 'replay',
      });
      const [replayId] = replay.handle('messaging-history.set', history, CAPTURED_AT).eventIds;
      expect(replayId).toBe(historyId);
      expect(JSON.parse(other.outbox.get(replayId ?? '')?.body ?? '{}')).toMatchObject({ source: 'history' });
      const [liveId] = replay.handle(
        'messages.upsert',
        { type: 'append', messages: [textMessage(GROUP, 'L1')] },
        CAPTURED_AT
      ).eventIds;
      expect(JSON.parse(other.outbox.get(liveId ?? '')?.body ?? '{}')).toMatchObject({ source: 'replay' });
    } finally {
      other.cleanup();
    }
  });
});

describe('notify, append and history copies of one message (ADR 0016)', () => {
  let temp: ReturnType<typeof openTempOutbox>;
  beforeEach(() => (temp = openTempOutbox()));
  afterEach(() => temp.cleanup());
  const pipeline = () =>
    new EventPipeline({ outbox: temp.outbox, logger: createRootLogger({ level: 'silent' }), getSelfJid: () => null });

  it('stores one row whichever copy comes first; the first copy says where it came from', () => {
    const message = textMessage(GROUP, 'N1');
    const history = historyPush([{ id: GROUP, messages: [message] }]);
    const p = pipeline();
    const [historyId] = p.handle('messaging-history.set', history, CAPTURED_AT).eventIds;
    const notify = p.handle('messages.upsert', { type: 'notify', messages: [decodedMessage(message)] }, CAPTURED_AT);
    const append = p.handle('messages.upsert', { type: 'append', messages: [decodedMessage(message)] }, CAPTURED_AT);
    expect([notify.eventIds, append.eventIds]).toEqual([[historyId], [historyId]]);
    expect([notify.duplicates, append.duplicates]).toEqual([1, 1]);
    expect(temp.outbox.countByState().pending).toBe(1);
    expect(JSON.parse(temp.outbox.get(historyId ?? '')?.body ?? '{}')).toMatchObject({ source: 'history' });
  });

  it('keeps a live upsert that Baileys’ event buffer absorbed into the history set, under its live id', () => {
    const ev = makeEventBuffer(pino({ level: 'silent' }));
    const seen: Array<[string, unknown]> = [];
    ev.process((events) => {
      for (const [name, data] of Object.entries(events)) seen.push([name, data]);
    });
    const message = textMessage(GROUP, 'B1');
    ev.buffer();
    ev.emit('messaging-history.set', historyPush([{ id: GROUP, messages: [message] }]) as never);
    ev.emit('messages.upsert', { type: 'notify', messages: [decodedMessage(message) as never] });
    ev.flush();
    // rc14 `event-buffer.js`: the upsert of a key already in the history set replaces it there; no upsert left.
    expect(seen.map(([name]) => name)).toEqual(['messaging-history.set']);
    const liveId = pipeline().handle('messages.upsert', { type: 'notify', messages: [message] }, CAPTURED_AT).eventIds;
    const fromBuffer = seen.flatMap(([name, data]) => pipeline().handle(name, data, CAPTURED_AT).eventIds);
    expect(fromBuffer).toEqual(liveId);
  });
});
