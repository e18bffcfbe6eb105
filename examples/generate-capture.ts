/**
 * Writes `examples/capture.jsonl`: a realistic, synthetic capture in our format,
 * in a plausible order, covering every kept and every dropped event of architecture.md §3 (never
 * `creds.update`: it is never recorded). Run: `npx tsx examples/generate-capture.ts`.
 * Deterministic: the same file every run.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatCaptureLine } from '../collector/capture/capture-line.js';
import * as b from './capture-builders.js';

const { GROUP_A, GROUP_B, T0, lid, pn } = b;
const events: Array<[event: string, data: unknown, atSeconds: number]> = [];
const at = (offsetSeconds: number): number => b.T0 + offsetSeconds;
const push = (offsetSeconds: number, event: string, data: unknown): void =>
  void events.push([event, data, at(offsetSeconds)]);

const membersA = [
  b.participant(1, 'superadmin'),
  b.participant(2, null),
  b.participant(3, 'admin'),
  b.participant(4, null),
];
const membersB = [b.participant(1, 'admin'), b.participant(5, null), b.participant(6, null)];
const metadataA = b.groupMetadata(GROUP_A, 'Example Group', membersA);
const metadataB = b.groupMetadata(GROUP_B, 'Second Example', membersB);
const hello = b.textMessage(GROUP_A, '3EB0A0000000000000000001', 1, at(60), 'hello group');
const emoji = b.textMessage(GROUP_A, '3EB0A0000000000000000002', 2, at(75), 'bom dia ☀️ 👋🏽 família 👨‍👩‍👧‍👦');
const withNul = b.textMessage(
  GROUP_A,
  '3EB0A0000000000000000003',
  3,
  at(90),
  'before\u0000after (a NUL byte from a broken client)'
);
const inGroupB = b.textMessage(GROUP_B, '3EB0B0000000000000000001', 5, at(100), 'hi second group');

// Session start: connecting, history sync, open, one snapshot per group.
push(0, 'connection.update', { connection: 'connecting', receivedPendingNotifications: false });
push(2, 'messaging-history.set', {
  chats: [{ id: pn(2), conversationTimestamp: T0 - 500, unreadCount: 1 }],
  contacts: [{ id: pn(2), lid: lid(2), name: 'Member 2' }],
  messages: [
    b.textMessage(GROUP_A, '3EB0A0000000000000000000', 1, T0 - 3600, 'older group history message (kept)'),
    b.textMessage(pn(2), '3EB0D0000000000000000000', 2, T0 - 3000, 'older private history message (dropped)'),
  ],
  lidPnMappings: [
    { lid: lid(1), pn: pn(1) },
    { lid: lid(2), pn: pn(2) },
  ],
  isLatest: true,
  progress: 100,
  syncType: 2,
});
push(3, 'messaging-history.status', { syncType: 2, status: 'complete', explicit: true });
push(4, 'connection.update', { connection: 'open' });
push(4, 'connection.update', { receivedPendingNotifications: true });
push(5, 'groups.metadata', metadataA);
push(5, 'groups.metadata', metadataB);
push(6, 'chats.upsert', [{ id: GROUP_A, conversationTimestamp: T0, unreadCount: 0 }]);
push(6, 'contacts.upsert', [{ id: pn(3), lid: lid(3), name: 'Member 3' }]);
push(7, 'lid-mapping.update', { lid: lid(3), pn: pn(3) });
push(8, 'settings.update', { setting: 'locale', value: 'pt_BR' });
push(9, 'blocklist.set', { blocklist: [pn(8)] });
push(10, 'labels.edit', { id: '1', name: 'Community', color: 3, deleted: false, predefinedId: '1' });
push(11, 'message-capping.update', { cappingStatus: 'NONE', ts: T0 });

// Live traffic in both groups, with the firehose and private traffic that must never leave the process.
push(60, 'messages.upsert', { type: 'notify', messages: [hello] });
push(61, 'presence.update', { id: GROUP_A, presences: { [lid(2)]: { lastKnownPresence: 'composing' } } });
push(75, 'messages.upsert', { type: 'notify', messages: [emoji] });
push(76, 'message-receipt.update', [{ key: hello['key'], receipt: { userJid: lid(2), readTimestamp: at(76) } }]);
push(90, 'messages.upsert', { type: 'notify', messages: [withNul] });
push(95, 'messages.upsert', {
  type: 'notify',
  messages: [b.textMessage(pn(2), '3EB0D0000000000000000001', 2, at(95), 'private DM (dropped)')],
});
push(96, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      ...b.textMessage(b.STATUS, '3EB0S0000000000000000001', 4, at(96), 'status post (dropped)'),
      key: { remoteJid: b.STATUS, fromMe: false, id: '3EB0S0000000000000000001', participant: pn(4) },
    },
  ],
});
push(97, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      key: { remoteJid: b.NEWSLETTER, fromMe: false, id: '1001', server_id: '1001' },
      messageTimestamp: at(97),
      message: { conversation: 'channel post (dropped)' },
    },
  ],
});
push(100, 'messages.upsert', { type: 'notify', messages: [inGroupB] });
push(101, 'chats.update', [{ id: GROUP_B, unreadCount: 1, conversationTimestamp: at(100) }]);
push(110, 'messages.reaction', [
  b.reaction(GROUP_A, '3EB0A0000000000000000001', 1, 2, '😂', at(110) * 1000),
  b.reaction(GROUP_A, '3EB0A0000000000000000001', 1, 3, '🔥', at(110) * 1000 + 400),
]);
push(111, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      key: b.groupKey(GROUP_A, '3EB0A0000000000000000011', 'self'),
      messageTimestamp: at(111),
      message: {
        reactionMessage: {
          key: b.groupKey(GROUP_A, '3EB0A0000000000000000002', 2),
          text: '❤️',
          senderTimestampMs: at(111) * 1000,
        },
      },
    },
  ],
});
push(111, 'messages.reaction', [b.reaction(GROUP_A, '3EB0A0000000000000000002', 2, 'self', '❤️', at(111) * 1000)]);
push(120, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      key: b.groupKey(GROUP_A, '3EB0A0000000000000000004', 4),
      messageTimestamp: { low: at(120), high: 0, unsigned: true },
      pushName: 'Member 4',
      message: {
        extendedTextMessage: {
          text: 'timestamp as protobuf Long',
          contextInfo: {
            stanzaId: '3EB0A0000000000000000001',
            participant: lid(1),
            quotedMessage: { conversation: 'hello group' },
          },
        },
      },
    },
  ],
});
push(130, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      key: b.groupKey(GROUP_A, '3EB0A0000000000000000005', 2),
      messageTimestamp: at(130),
      messageStubType: 2,
      messageStubParameters: ['No matching sessions found for message'],
    },
  ],
});
push(131, 'messages.upsert', {
  type: 'notify',
  messages: [
    b.textMessage(
      GROUP_A,
      '3EB0A0000000000000000005',
      2,
      at(130),
      'decrypted on retry: same id as the CIPHERTEXT stub'
    ),
  ],
});
push(140, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      key: b.groupKey(GROUP_A, '3EB0A0000000000000000006', 3),
      messageTimestamp: at(140),
      message: {
        imageMessage: {
          mimetype: 'image/jpeg',
          caption: 'photo with a large inline thumbnail',
          fileLength: { low: 2_400_000, high: 0, unsigned: true },
          mediaKey: Buffer.alloc(32, 7),
          fileSha256: Buffer.alloc(32, 8),
          jpegThumbnail: Buffer.alloc(70 * 1024, 0xab),
          width: 1280,
          height: 960,
        },
      },
    },
  ],
});
push(141, 'messages.media-update', [
  {
    key: b.groupKey(GROUP_A, '3EB0A0000000000000000006', 3),
    media: { ciphertext: Buffer.alloc(16, 1), iv: Buffer.alloc(16, 2) },
  },
]);
push(150, 'messages.update', [
  {
    key: b.groupKey(GROUP_A, '3EB0A0000000000000000002', 2),
    update: {
      message: { editedMessage: { message: { conversation: 'bom dia ☀️ (edited)' } } },
      messageTimestamp: at(150),
    },
  },
]);
push(151, 'messages.update', [{ key: b.groupKey(GROUP_A, '3EB0A0000000000000000003', 3), update: { status: 4 } }]);
push(160, 'messages.upsert', {
  type: 'notify',
  messages: [
    {
      key: b.groupKey(GROUP_A, '3EB0A0000000000000000007', 3),
      messageTimestamp: at(160),
      message: { protocolMessage: { key: b.groupKey(GROUP_A, '3EB0A0000000000000000003', 3), type: 0 } },
    },
  ],
});
push(161, 'messages.update', [
  {
    key: b.groupKey(GROUP_A, '3EB0A0000000000000000003', 3),
    update: { message: null, messageStubType: 1, key: b.groupKey(GROUP_A, '3EB0A0000000000000000003', 3) },
  },
]);
push(170, 'messages.delete', { keys: [b.groupKey(GROUP_B, '3EB0B0000000000000000001', 5)] });
push(171, 'messages.delete', { jid: GROUP_B, all: true });
push(180, 'messages.upsert', {
  type: 'notify',
  messages: [b.stubMessage(GROUP_A, '3EB0A0000000000000000008', 1, at(180), 27, [lid(5)])],
});
push(180, 'group-participants.update', {
  id: GROUP_A,
  author: lid(1),
  authorPn: pn(1),
  participants: [{ id: lid(5), phoneNumber: pn(5), admin: null }],
  action: 'add',
});
push(185, 'group-participants.update', {
  id: GROUP_A,
  author: lid(1),
  authorPn: pn(1),
  participants: [{ id: lid(2), phoneNumber: pn(2), admin: 'admin' }],
  action: 'promote',
});
push(190, 'groups.update', [{ id: GROUP_B, subject: 'Second Example (renamed)', author: lid(1), authorPn: pn(1) }]);
push(195, 'group.join-request', {
  id: GROUP_A,
  author: lid(6),
  authorPn: pn(6),
  participant: lid(6),
  participantPn: pn(6),
  action: 'created',
  method: 'invite_link',
});
push(196, 'group.member-tag.update', {
  groupId: GROUP_A,
  participant: lid(3),
  participantAlt: pn(3),
  label: 'Organizer',
  messageTimestamp: at(196),
});
push(200, 'call', [
  {
    chatId: GROUP_A,
    from: lid(4),
    isGroup: true,
    groupJid: GROUP_A,
    id: 'CALL0000000000000001',
    date: new Date(at(200) * 1000),
    isVideo: false,
    status: 'offer',
    offline: false,
    latencyMs: 120,
  },
]);
push(210, 'call', [
  {
    chatId: pn(4),
    from: pn(4),
    isGroup: false,
    id: 'CALL0000000000000002',
    date: new Date(at(210) * 1000),
    isVideo: true,
    status: 'offer',
    offline: false,
  },
]);
push(215, 'groups.upsert', [
  b.groupMetadata('120363000000000003@g.us', 'New Example Group', [
    b.participant(1, 'superadmin'),
    b.participant(7, null),
  ]),
]);
push(220, 'newsletter.reaction', { id: b.NEWSLETTER, server_id: '1001', reaction: { code: '👍', count: 3 } });
push(221, 'newsletter.view', { id: b.NEWSLETTER, server_id: '1001', count: 120 });
push(222, 'newsletter-participants.update', {
  id: b.NEWSLETTER,
  author: lid(1),
  user: lid(2),
  new_role: 'ADMIN',
  action: 'promote',
});
push(223, 'newsletter-settings.update', { id: b.NEWSLETTER, update: { name: 'Example channel' } });
push(224, 'labels.association', { association: { type: 'chat', chatId: GROUP_A, labelId: '1' }, type: 'add' });
push(225, 'blocklist.update', { blocklist: [pn(8)], type: 'add' });
push(226, 'chats.lock', { id: pn(2), locked: true });
push(227, 'contacts.update', [{ id: pn(3), notify: 'Member 3' }]);
push(228, 'chats.delete', [pn(7)]);

// Reconnect: the socket drops (428), comes back, fetches the unchanged snapshots again, and the server
// re-delivers what arrived around the drop as `append` — including messages already captured.
push(300, 'connection.update', {
  connection: 'close',
  lastDisconnect: { error: b.serializedBoom(428, 'Connection Terminated'), date: new Date(at(300) * 1000) },
});
push(305, 'connection.update', { connection: 'connecting', receivedPendingNotifications: false });
push(307, 'connection.update', { connection: 'open' });
push(308, 'groups.metadata', metadataA);
push(308, 'groups.metadata', metadataB);
push(309, 'messages.upsert', {
  type: 'append',
  messages: [
    hello,
    emoji,
    inGroupB,
    b.textMessage(GROUP_A, '3EB0A0000000000000000009', 4, at(302), 'sent while the collector was offline'),
  ],
});
push(310, 'messages.upsert', {
  type: 'append',
  messages: [
    {
      ...hello,
      key: { remoteJid: GROUP_A, fromMe: false, id: '3EB0A0000000000000000001', participant: pn(1) },
      messageTimestamp: { low: at(60), high: 0, unsigned: false },
    },
  ],
});
push(311, 'connection.update', { receivedPendingNotifications: true });
push(320, 'messages.reaction', [b.reaction(GROUP_A, '3EB0A0000000000000000001', 1, 2, '😂', at(320) * 1000)]);
push(330, 'messages.reaction', [b.reaction(GROUP_A, '3EB0A0000000000000000001', 1, 3, '', at(330) * 1000)]);
push(340, 'presence.update', {
  id: GROUP_B,
  presences: { [lid(5)]: { lastKnownPresence: 'available', lastSeen: at(340) } },
});
push(350, 'messages.upsert', {
  type: 'notify',
  messages: [b.stubMessage(GROUP_A, '3EB0A0000000000000000010', 5, at(350), 32, [lid(5)])],
});
push(350, 'group-participants.update', {
  id: GROUP_A,
  author: lid(5),
  participants: [{ id: lid(5), phoneNumber: pn(5), admin: null }],
  action: 'remove',
});
push(360, 'messages.upsert', {
  type: 'notify',
  messages: [b.textMessage(GROUP_B, '3EB0B0000000000000000002', 'self', at(360), 'collector account says hi 🙂')],
});

const lines = events.map(([event, data, seconds]) => formatCaptureLine(event, data, new Date(seconds * 1000)));
const target = fileURLToPath(new URL('./capture.jsonl', import.meta.url));
writeFileSync(target, `${lines.join('\n')}\n`);
process.stdout.write(`wrote ${lines.length} events to ${target}\n`);
