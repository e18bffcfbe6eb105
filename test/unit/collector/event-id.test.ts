import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { filterEvent } from '../../../collector/edge-filter.js';
import {
  deriveEventId,
  deriveFirstCollectorEventId,
  EVENT_ID_NAMESPACE,
  eventIdFromName,
  eventIdName,
  firstCollectorEventIdName,
} from '../../../collector/event-id.js';
import { normalizeItem } from '../../../collector/normalize/normalize-value.js';
import {
  decodedLong,
  decodedMessage,
  GROUP,
  loadSample,
  MEMBER_LID,
  MEMBER_PN,
  reaction,
  SELF_JID,
  stubMessage,
  textMessage,
} from '../../fixtures/collector/baileys-events.js';

/** event_ids of every kept item of one event, through the real filter and normalization. */
function idsOf(name: string, data: unknown, selfJid: string | null = SELF_JID): string[] {
  return filterEvent(name, data).kept.map((kept) =>
    deriveEventId({ type: kept.type, chatJid: kept.chatJid, item: normalizeItem(kept.type, kept.item), selfJid })
  );
}

describe('deriveEventId', () => {
  it('keeps the golden value of architecture.md §4', () => {
    expect(EVENT_ID_NAMESPACE).toBe('b5f8c1e2-3a4d-4f6b-9c7e-1d2a3b4c5d6e');
    expect(eventIdFromName('messages.upsert|120363000000000001@g.us|3EB0A0000000000000000001')).toBe(
      '7c301bfa-8af7-53a4-9bc3-8e9bcf75641d'
    );
  });

  it('gives sample 01 its golden event_id through filter and normalization', () => {
    const sample = loadSample('01-messages-upsert-notify-text.json');
    const kept = filterEvent(sample.baileys_event.name, sample.baileys_event.data).kept[0];
    if (!kept) throw new Error('sample 01 was dropped');
    const input = { type: kept.type, chatJid: kept.chatJid, item: normalizeItem(kept.type, kept.item), selfJid: null };
    expect(eventIdName(input)).toBe(sample.golden?.name);
    expect(deriveEventId(input)).toBe(sample.golden?.event_id);
  });

  it('gives a CIPHERTEXT stub and the real message with the same key.id two events', () => {
    const stub = stubMessage(GROUP, 'M1', 'CIPHERTEXT', ['No session found to decrypt message']);
    const ids = idsOf('messages.upsert', { type: 'notify', messages: [stub, textMessage(GROUP, 'M1')] });
    expect(new Set(ids).size).toBe(2);
    expect(ids[1]).toBe(eventIdFromName(`messages.upsert|${GROUP}|M1`));
  });

  it('gives a buffer-merged revoke (two items sharing the revoke id) two events', () => {
    const revokeMessage = {
      key: { remoteJid: GROUP, fromMe: false, id: 'RV1', participant: MEMBER_LID },
      message: { protocolMessage: { key: { remoteJid: GROUP, id: 'M9' }, type: 'REVOKE' } },
    };
    const mergedStub = stubMessage(GROUP, 'RV1', 1);
    const ids = idsOf('messages.upsert', { type: 'notify', messages: [revokeMessage, mergedStub] });
    expect(new Set(ids).size).toBe(2);
  });

  it('gives stubs with different parameters different events and the same stub the same event', () => {
    const add = (who: string) => stubMessage(GROUP, 'S1', 'GROUP_PARTICIPANT_ADD', [who]);
    expect(idsOf('messages.upsert', { type: 'notify', messages: [add('a@lid')] })).not.toEqual(
      idsOf('messages.upsert', { type: 'notify', messages: [add('b@lid')] })
    );
    expect(idsOf('messages.upsert', { type: 'notify', messages: [add('a@lid')] })).toEqual(
      idsOf('messages.upsert', { type: 'append', messages: [stubMessage(GROUP, 'S1', 27, ['a@lid'])] })
    );
  });

  it('gives a placeholder (no message) and its later content two events', () => {
    const placeholder = { key: { remoteJid: GROUP, id: 'P1', participant: MEMBER_LID }, messageTimestamp: 1700000000 };
    expect(
      new Set(idsOf('messages.upsert', { type: 'notify', messages: [placeholder, textMessage(GROUP, 'P1')] })).size
    ).toBe(2);
  });

  it('gives one event for a group message seen live (LID + participantAlt) and from history (phone participant, Long timestamp)', () => {
    const live = textMessage(GROUP, 'L1');
    const history = decodedMessage({
      key: { remoteJid: GROUP, fromMe: false, id: 'L1', participant: MEMBER_PN },
      messageTimestamp: 1700000000,
      message: { conversation: 'hello group' },
    });
    expect((history as { messageTimestamp: unknown }).messageTimestamp).toEqual(decodedLong(1700000000));
    expect(idsOf('messages.upsert', { type: 'notify', messages: [live] })).toEqual(
      idsOf('messages.upsert', { type: 'append', messages: [history] })
    );
  });

  it('gives one event for the same stub decoded live and read back from a JSON trail (enum name, Long string, no empty arrays)', () => {
    const decoded = decodedMessage({
      key: { remoteJid: GROUP, id: 'T1', participant: MEMBER_LID },
      messageTimestamp: 1700000000,
      messageStubType: 2,
    });
    const trail = JSON.parse(JSON.stringify(decoded)) as unknown;
    expect(trail).toMatchObject({ messageStubType: 'CIPHERTEXT', messageTimestamp: '1700000000' });
    expect(idsOf('messages.upsert', { type: 'notify', messages: [decoded] })).toEqual(
      idsOf('messages.upsert', { type: 'append', messages: [trail] })
    );
  });

  it('gives one event for an edit seen live and read back from a JSON trail (base64 bytes, nested enum names)', () => {
    const live = {
      key: { remoteJid: GROUP, id: 'E7' },
      update: {
        message: {
          imageMessage: { mediaKey: Buffer.from([7, 8, 9]), imageSourceType: 2, fileLength: decodedLong(4096) },
        },
      },
    };
    const trail = {
      key: { remoteJid: GROUP, id: 'E7' },
      update: {
        message: {
          imageMessage: {
            mediaKey: Buffer.from([7, 8, 9]).toString('base64'),
            imageSourceType: 'AI_MODIFIED',
            fileLength: '4096',
          },
        },
      },
    };
    expect(idsOf('messages.update', [trail])).toEqual(idsOf('messages.update', [live]));
    expect(normalizeItem('messages.update', trail)).toEqual(normalizeItem('messages.update', live));
  });

  it('gives one event for a reaction re-emitted with a different senderTimestampMs', () => {
    const first = reaction('M1', '👍', { reactor: '100000000000002@lid', senderTimestampMs: 1700000200000 });
    const again = reaction('M1', '👍', { reactor: '100000000000002@lid', senderTimestampMs: 1700000999000 });
    expect(idsOf('messages.reaction', [first])).toEqual(idsOf('messages.reaction', [again]));
    expect(idsOf('messages.reaction', [first])).not.toEqual(
      idsOf('messages.reaction', [reaction('M1', '', { reactor: '100000000000002@lid' })])
    );
  });

  it('names the collector as reactor of its own reaction (no participant, fromMe)', () => {
    const own = reaction('M1', '❤️', { fromMe: true });
    const kept = filterEvent('messages.reaction', [own]).kept[0];
    if (!kept) throw new Error('reaction dropped');
    expect(
      eventIdName({
        type: kept.type,
        chatJid: kept.chatJid,
        item: normalizeItem(kept.type, kept.item),
        selfJid: SELF_JID,
      })
    ).toBe('messages.reaction|M1|5500000000000@s.whatsapp.net|❤️');
  });

  it('gives one event per reaction of the sample fan-out batch', () => {
    const sample = loadSample('04-messages-reaction-fanout.json').baileys_event;
    const ids = idsOf(sample.name, sample.data);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(eventIdFromName('messages.reaction|3EB0A0000000000000000001|100000000000002@lid|😂'));
  });

  it('keys messages.update and messages.delete by group, key.id and the item hash', () => {
    const edit = {
      key: { remoteJid: GROUP, id: 'E1' },
      update: { message: { editedMessage: { conversation: 'v2' } } },
    };
    const name = eventIdName({
      type: 'messages.update',
      chatJid: GROUP,
      item: normalizeItem('messages.update', edit),
      selfJid: null,
    });
    expect(name).toMatch(new RegExp(`^messages\\.update\\|${GROUP}\\|E1\\|[0-9a-f]{40}$`));
    const statusOnly = (status: number) => ({ key: { remoteJid: GROUP, id: 'E1' }, update: { status } });
    expect(idsOf('messages.update', [statusOnly(3)])).toEqual(idsOf('messages.update', [statusOnly(4)]));
    expect(
      eventIdName({
        type: 'messages.delete',
        chatJid: GROUP,
        item: { keys: [{ remoteJid: GROUP, id: 'D1' }] },
        selfJid: null,
      })
    ).toMatch(/^messages\.delete\|120363000000000001@g\.us\|D1\|[0-9a-f]{40}$/);
  });

  it('derives an id for a reaction whose emoji is a lone surrogate instead of throwing', () => {
    const broken = reaction('M1', '\uD83D', { reactor: '100000000000002@lid' });
    const [id] = idsOf('messages.reaction', [broken]);
    expect(id).toBe(eventIdFromName('messages.reaction|M1|100000000000002@lid|\uFFFD'));
  });

  it('keys identity data without a chat', () => {
    expect(
      eventIdName({
        type: 'lid-mapping.update',
        chatJid: null,
        item: { lid: '1@lid', pn: '1@s.whatsapp.net' },
        selfJid: null,
      })
    ).toMatch(/^lid-mapping\.update\|\|[0-9a-f]{40}$/);
  });
});

describe('first-collector ids and partial snapshots', () => {
  const GROUP_JID = '120363000000000001@g.us';
  const snapshotItem = (size: number) => ({
    id: GROUP_JID,
    subject: 'Announcements',
    size,
    participants: [{ id: '100000000000001@lid', admin: 'admin' }],
  });
  const idOfSnapshot = (item: ReturnType<typeof snapshotItem>): string =>
    deriveEventId({ type: 'groups.metadata', chatJid: GROUP_JID, item, selfJid: null });

  it('keys a partial snapshot by its size, and a complete one without it', () => {
    expect(idOfSnapshot(snapshotItem(40))).not.toBe(idOfSnapshot(snapshotItem(41)));
    expect(eventIdName({ type: 'groups.metadata', chatJid: GROUP_JID, item: snapshotItem(40), selfJid: null })).toMatch(
      /\|size=40$/
    );
    expect(idOfSnapshot(snapshotItem(1))).toBe(idOfSnapshot(snapshotItem(0)));
  });

  it('gives the first collector id only when its rules differ: *Pn and phoneNumber hashed', () => {
    const withPn = {
      type: 'groups.update',
      chatJid: GROUP_JID,
      item: { id: GROUP_JID, subject: 'S', author: '100000000000001@lid', authorPn: '5500000000001@s.whatsapp.net' },
      selfJid: null,
    };
    const legacy = deriveFirstCollectorEventId(withPn);
    expect(legacy).not.toBeNull();
    expect(legacy).not.toBe(deriveEventId(withPn));
    expect(legacy).toBe(eventIdFromName(firstCollectorEventIdName(withPn)));
    expect(firstCollectorEventIdName(withPn)).toBe(`groups.update|${GROUP_JID}|${hashItemWithPn(withPn.item)}`);
    const withoutPn = { ...withPn, item: { id: GROUP_JID, subject: 'S', author: '100000000000001@lid' } };
    expect(deriveFirstCollectorEventId(withoutPn)).toBeNull();
    expect(
      deriveFirstCollectorEventId({
        type: 'groups.metadata',
        chatJid: GROUP_JID,
        item: snapshotItem(40),
        selfJid: null,
      })
    ).not.toBeNull();
  });
});

/** The first collector's hash of a flat item: SHA-1 of its canonical JSON with only today's non-Pn volatile fields left out. */
function hashItemWithPn(item: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash('sha1').update(JSON.stringify(sorted)).digest('hex');
}
