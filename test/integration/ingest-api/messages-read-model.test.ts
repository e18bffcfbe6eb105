import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  contentMessage,
  editMessage,
  editUpdate,
  encryptedEdit,
  mergedRevoke,
  participantAddedStub,
  pollVote,
  reactionEvent,
  reactionMessage,
  revokeMessage,
  textMessage,
  undecryptable,
  type Body,
} from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const GROUP = '120363000000000111@g.us';
const LID_A = '100000000000001@lid';
const LID_B = '100000000000002@lid';
const PHONE_B = '5500000000002@s.whatsapp.net';
const T = 1_700_000_000;
const key = (id: string, sender = LID_A): { group: string; id: string; sender: string } => ({
  group: GROUP,
  id,
  sender,
});

const fresh = useFreshLake();

const store = async (body: Body, eventId = randomUUID()): Promise<string> =>
  fresh.lake.store(eventId, JSON.stringify(body));

interface MessageRow {
  message_id: string;
  kind: string;
  sender_id: string | null;
  reply_to_id: string | null;
  mention_count: number;
  edit_count: number;
  last_edited_at: Date | null;
  deleted_at: Date | null;
  reaction_count: number;
}
const messages = async (): Promise<MessageRow[]> =>
  (
    await fresh.lake.pool.query<MessageRow>(
      `SELECT message_id, kind, sender_id, reply_to_id, mention_count, edit_count, last_edited_at, deleted_at, reaction_count
         FROM whatsapp_messages WHERE chat_jid = $1 ORDER BY message_id`,
      [GROUP]
    )
  ).rows;
const row = async (id: string): Promise<MessageRow | undefined> => (await messages()).find((m) => m.message_id === id);

describe('whatsapp_messages read model', () => {
  it('keeps kind, reply and mentions of a message, and counts one row per message id', async () => {
    await store(textMessage(key('M1'), T));
    await store(textMessage(key('M2'), T + 1, { replyTo: 'M1', mentions: [LID_B, PHONE_B] }));
    expect(await row('M2')).toMatchObject({ kind: 'text', reply_to_id: 'M1', mention_count: 2, sender_id: LID_A });
    await store(contentMessage(key('M3'), T + 2, { imageMessage: { mimetype: 'image/jpeg' } }));
    await store(contentMessage(key('M4'), T + 3, { pollCreationMessageV3: { name: 'q', options: [] } }));
    await store(contentMessage(key('M5'), T + 4, { stickerMessage: {} }));
    expect((await messages()).map((m) => [m.message_id, m.kind])).toEqual([
      ['M1', 'text'],
      ['M2', 'text'],
      ['M3', 'media'],
      ['M4', 'poll'],
      ['M5', 'sticker'],
    ]);
  });

  it('turns an undecryptable placeholder into the real message, in either order, and keeps a lone one', async () => {
    await store(undecryptable(key('U1'), T));
    await store(textMessage(key('U1'), T));
    await store(textMessage(key('U2'), T));
    await store(undecryptable(key('U2'), T));
    await store(undecryptable(key('U3'), T));
    expect((await row('U1'))?.kind).toBe('text');
    expect((await row('U2'))?.kind).toBe('text');
    expect((await row('U3'))?.kind).toBe('undecryptable');
  });

  it('marks view-once content and the view-once placeholder as view_once messages', async () => {
    await store(contentMessage(key('V1'), T, { viewOnceMessageV2: { message: { imageMessage: { viewOnce: true } } } }));
    await store(contentMessage(key('V2'), T, { placeholderMessage: { type: 0 } }));
    expect((await row('V1'))?.kind).toBe('view_once');
    expect((await row('V2'))?.kind).toBe('view_once');
  });

  it('lands edits on the original (reported twice, encrypted, before the original) and adds no message', async () => {
    await store(editMessage(key('E-edit-1'), T + 60, 'E1'));
    await store(editUpdate(key('E-edit-1'), T + 60, 'E1'));
    await store(undecryptable(key('E-edit-2'), T + 120));
    await store(encryptedEdit(key('E-edit-2'), T + 120, 'E1'));
    await store(textMessage(key('E1'), T));
    const edited = await row('E1');
    expect(edited).toMatchObject({ kind: 'text', edit_count: 2 });
    expect(edited?.last_edited_at?.toISOString()).toBe(new Date((T + 120) * 1000).toISOString());
    expect(await row('E-edit-1')).toBeUndefined();
    expect(await row('E-edit-2')).toBeUndefined();
  });

  it('marks a revoked message deleted, also when the buffer merged the revoke into it', async () => {
    await store(textMessage(key('D1'), T));
    await store(revokeMessage(key('D-rev-1'), T + 30, 'D1'));
    expect((await row('D1'))?.deleted_at?.toISOString()).toBe(new Date((T + 30) * 1000).toISOString());
    expect(await row('D-rev-1')).toBeUndefined();
    // Merged: the target's own item now carries the revoke's key, no content and stub REVOKE; the revoke
    // message of the same batch names the target, so the item is the target (ADR 0019).
    await store(mergedRevoke(key('D-rev-2'), T + 40));
    await store(revokeMessage(key('D-rev-2'), T + 50, 'D-original-lost'));
    const merged = await row('D-original-lost');
    expect(merged).toMatchObject({ kind: 'revoked', sender_id: LID_A });
    expect(merged?.deleted_at).not.toBeNull();
    expect(await row('D-rev-2')).toBeUndefined();
    // Without its revoke message, a merged item stays under the id it carries.
    await store(mergedRevoke(key('D-rev-3'), T + 60));
    expect(await row('D-rev-3')).toMatchObject({ kind: 'revoked' });
  });

  it('counts a reaction once per reactor, uncounts a removal, and merges a phone reactor into its LID', async () => {
    const target = key('R1');
    await store(textMessage(target, T));
    await store(reactionEvent(target, LID_B, '😂', T * 1000 + 1));
    await store(reactionMessage(target, LID_B, '😂', T * 1000 + 1));
    expect((await row('R1'))?.reaction_count).toBe(1);
    await store(reactionEvent(target, PHONE_B, '🔥', T * 1000 + 2));
    expect((await row('R1'))?.reaction_count).toBe(2);
    await store({ type: 'lid-mapping.update', chat_jid: null, payload: { lid: LID_B, pn: PHONE_B } });
    expect((await row('R1'))?.reaction_count).toBe(1);
    await store(reactionEvent(target, LID_B, '', T * 1000 + 3));
    expect((await row('R1'))?.reaction_count).toBe(0);
    expect(await row(`R${LID_B}${T * 1000 + 1}`)).toBeUndefined();
  });

  it('never makes a message of a poll vote or a group-change stub, and a replay changes nothing', async () => {
    const before = await messages();
    await store(pollVote(key('P-vote'), T, 'M4'));
    await store(participantAddedStub(key('S1'), T, LID_B));
    expect(await messages()).toEqual(before);
    const replayed = textMessage(key('X1'), T);
    const eventId = randomUUID();
    expect(await store(replayed, eventId)).toBe('stored');
    const once = await messages();
    expect(await store(replayed, eventId)).toBe('duplicate');
    expect(await messages()).toEqual(once);
  });
});
