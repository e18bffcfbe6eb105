import { describe, expect, it } from 'vitest';
import { filterEvent } from '../../../collector/edge-filter.js';
import { EVENT_KINDS, EVENT_PREFIX_KINDS, ruleForEvent } from '../../../collector/event-kinds.js';
import {
  DM,
  DM_LID,
  GROUP,
  NEWSLETTER,
  OTHER_GROUP,
  STATUS,
  credsUpdate,
  loadSample,
  textMessage,
  upsert,
} from '../../fixtures/collector/baileys-events.js';

describe('EVENT_KINDS', () => {
  it('gives every entry a disposition and a reason', () => {
    const rules = [...Object.values(EVENT_KINDS), ...EVENT_PREFIX_KINDS.map(([, rule]) => rule)];
    for (const rule of rules) {
      expect(['keep', 'drop', 'never']).toContain(rule.disposition);
      expect(rule.reason.length).toBeGreaterThan(10);
    }
  });

  it('keeps the architecture.md §3 keep-list and names the group JID field of each', () => {
    const keep = [
      'messages.upsert',
      'messages.update',
      'messages.reaction',
      'messages.delete',
      'group-participants.update',
      'groups.update',
      'groups.upsert',
      'group.join-request',
      'group.member-tag.update',
      'call',
      'groups.metadata',
    ];
    for (const name of keep) {
      expect(EVENT_KINDS[name]?.disposition).toBe('keep');
      expect(EVENT_KINDS[name]?.groupJidField).toBeTruthy();
    }
    expect(EVENT_KINDS['group.member-tag.update']?.groupJidField).toBe('groupId');
  });

  it('drops the denylist families and never lets creds.update out', () => {
    for (const name of [
      'presence.update',
      'chats.upsert',
      'chats.update',
      'contacts.upsert',
      'message-receipt.update',
      'messaging-history.status',
      'messages.media-update',
      'message-capping.update',
      'blocklist.set',
      'labels.edit',
      'newsletter.reaction',
      'newsletter-settings.update',
      'settings.update',
      'connection.update',
    ]) {
      expect(ruleForEvent(name).disposition, name).toBe('drop');
    }
    expect(ruleForEvent('creds.update').disposition).toBe('never');
  });
});

describe('filterEvent', () => {
  it('filters per item: group messages kept, DM, status and newsletter items of the same batch dropped', () => {
    const { name, data } = upsert(
      [
        textMessage(GROUP, 'A1'),
        textMessage(DM, 'A2'),
        textMessage(STATUS, 'A3'),
        textMessage(NEWSLETTER, 'A4'),
        textMessage(DM_LID, 'A5'),
        textMessage(OTHER_GROUP, 'A6'),
      ],
      'append'
    );
    const result = filterEvent(name, data);
    expect(result.kept.map((k) => [k.chatJid, (k.item as { key: { id: string } }).key.id, k.upsertType])).toEqual([
      [GROUP, 'A1', 'append'],
      [OTHER_GROUP, 'A6', 'append'],
    ]);
    expect(result.dropped).toEqual({ not_group: 4 });
  });

  it('drops presence.update although its id is a group JID', () => {
    const result = filterEvent('presence.update', {
      id: GROUP,
      presences: { '100000000000001@lid': { lastKnownPresence: 'composing' } },
    });
    expect(result.kept).toEqual([]);
    expect(result.dropped).toEqual({ presence_firehose: 1 });
  });

  it('keeps messages.delete {keys} per key, with the group JID of each key', () => {
    const result = filterEvent('messages.delete', {
      keys: [
        { remoteJid: GROUP, id: 'D1', fromMe: false },
        { remoteJid: DM, id: 'D2', fromMe: false },
      ],
    });
    expect(result.kept).toEqual([
      { type: 'messages.delete', chatJid: GROUP, item: { keys: [{ remoteJid: GROUP, id: 'D1', fromMe: false }] } },
    ]);
    expect(result.dropped).toEqual({ not_group: 1 });
  });

  it('keeps messages.delete {jid, all} of a group as one item', () => {
    expect(filterEvent('messages.delete', { jid: GROUP, all: true }).kept).toEqual([
      { type: 'messages.delete', chatJid: GROUP, item: { jid: GROUP, all: true } },
    ]);
    expect(filterEvent('messages.delete', { jid: DM, all: true }).kept).toEqual([]);
  });

  it('keeps group.member-tag.update by its groupId', () => {
    const data = { groupId: GROUP, participant: '100000000000001@lid', label: 'mentor', messageTimestamp: 1700000000 };
    expect(filterEvent('group.member-tag.update', data).kept).toEqual([
      { type: 'group.member-tag.update', chatJid: GROUP, item: data },
    ]);
  });

  it('keeps group call offers and drops one-to-one calls', () => {
    const group = {
      chatId: GROUP,
      from: '100000000000001@lid',
      groupJid: GROUP,
      isGroup: true,
      id: 'C1',
      date: new Date(0),
      status: 'offer',
      offline: false,
    };
    const direct = { chatId: DM, from: DM, id: 'C2', date: new Date(0), status: 'offer', offline: false };
    const result = filterEvent('call', [group, direct]);
    expect(result.kept.map((k) => k.chatJid)).toEqual([GROUP]);
    expect(result.dropped).toEqual({ not_group: 1 });
  });

  it('keeps the group events by id, one item per group', () => {
    expect(
      filterEvent('groups.update', [
        { id: GROUP, subject: 'x' },
        { id: OTHER_GROUP, announce: true },
      ]).kept
    ).toHaveLength(2);
    const participants = loadSample('08-group-participants-update-add.json').baileys_event;
    expect(filterEvent(participants.name, participants.data).kept[0]?.chatJid).toBe(GROUP);
    const snapshot = loadSample('12-groups-metadata-snapshot.json').baileys_event;
    expect(filterEvent(snapshot.name, snapshot.data).kept[0]?.chatJid).toBe(GROUP);
    expect(
      filterEvent('group.join-request', {
        id: GROUP,
        author: 'a@lid',
        participant: 'b@lid',
        action: 'created',
        method: 'invite_link',
      }).kept
    ).toHaveLength(1);
  });

  it('keeps lid-mapping.update as identity data with a null chat', () => {
    expect(
      filterEvent('lid-mapping.update', { lid: '100000000000001@lid', pn: '5500000000001@s.whatsapp.net' }).kept
    ).toEqual([
      {
        type: 'lid-mapping.update',
        chatJid: null,
        item: { lid: '100000000000001@lid', pn: '5500000000001@s.whatsapp.net' },
      },
    ]);
  });

  it('keeps the group messages of messaging-history.set, its mappings as lid-mapping.update, and counts the rest', () => {
    const mappings = [
      { lid: '1@lid', pn: '1@s.whatsapp.net' },
      { lid: '2@lid', pn: '2@s.whatsapp.net' },
    ];
    const result = filterEvent('messaging-history.set', {
      chats: [],
      contacts: [],
      messages: [textMessage(GROUP, 'H1'), textMessage(DM, 'H2')],
      lidPnMappings: mappings,
      isLatest: true,
    });
    expect(result.kept).toEqual([
      { type: 'messages.upsert', chatJid: GROUP, item: textMessage(GROUP, 'H1'), source: 'history' },
      ...mappings.map((item) => ({ type: 'lid-mapping.update', chatJid: null, item, source: 'history' })),
    ]);
    expect(result.dropped).toEqual({ history_messages: 1 });
  });

  it('returns nothing but a secret flag for creds.update', () => {
    const { name, data } = credsUpdate();
    expect(filterEvent(name, data)).toEqual({ kept: [], dropped: { key_material: 1 }, isSecret: true });
  });

  it('default-allows an unknown event per item when it carries a group JID', () => {
    const result = filterEvent('groups.some-future-event', [
      { groupJid: GROUP, x: 1 },
      { jid: DM, x: 2 },
    ]);
    expect(result.kept.map((k) => k.chatJid)).toEqual([GROUP]);
    expect(result.dropped).toEqual({ not_group: 1 });
  });
});
