import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareItem } from '../../../collector/prepare-item.js';
import { readStoredAccount } from '../../../collector/session/stored-account.js';

const GROUP = '120363000000002705@g.us';
const LIVE_SELF = '5500000000500@s.whatsapp.net';
const LIMITS = { bodyLimitBytes: 1_000_000, inlineBinaryLimitBytes: 100_000 };
/** The account's own reaction as `messages.reaction` (Baileys 7): its key says fromMe and names no participant. */
const ownReaction = {
  type: 'messages.reaction',
  chatJid: GROUP,
  item: {
    key: { remoteJid: GROUP, fromMe: false, id: '3EB0C27000000000000501', participant: '20000000000502@lid' },
    reaction: { key: { remoteJid: GROUP, fromMe: true, id: '3EB0C27000000000000503' }, text: '🎉' },
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the account in its own items (ADR 0019)', () => {
  it('sends account_jid with an own message and an own reaction, not with others', () => {
    const ownMessage = {
      type: 'messages.upsert',
      chatJid: GROUP,
      upsertType: 'notify',
      item: { key: { remoteJid: GROUP, fromMe: true, id: 'OWN1' }, message: { conversation: 'news' } },
    };
    const other = { ...ownMessage, item: { ...ownMessage.item, key: { remoteJid: GROUP, fromMe: false, id: 'X' } } };
    const bodyOf = (kept: typeof ownMessage | typeof ownReaction): Record<string, unknown> => {
      const prepared = prepareItem(kept, '2024-03-04T15:00:00.000Z', LIVE_SELF, LIMITS);
      return JSON.parse(prepared.row.body) as Record<string, unknown>;
    };
    expect(bodyOf(ownMessage)['account_jid']).toBe(LIVE_SELF);
    expect(bodyOf(ownReaction)['account_jid']).toBe(LIVE_SELF);
    expect(bodyOf(other)['account_jid']).toBeUndefined();
  });

  it('sends the account LID beside its phone JID when the session knows it (case 7)', () => {
    const prepared = prepareItem(ownReaction, '2024-03-04T15:00:00.000Z', LIVE_SELF, LIMITS, {
      selfLid: '20000000000500:7@lid',
    });
    expect(JSON.parse(prepared.row.body)).toMatchObject({ account_jid: LIVE_SELF, account_lid: '20000000000500@lid' });
  });

  it('gives a replayed own reaction the live event_id when the auth folder knows the account', () => {
    const authDir = mkdtempSync(join(tmpdir(), 'wa-lake-auth-'));
    dirs.push(authDir);
    writeFileSync(
      join(authDir, 'creds.json'),
      JSON.stringify({ me: { id: '5500000000500:7@s.whatsapp.net', lid: '20000000000500:7@lid', name: 'x' } })
    );
    const stored = readStoredAccount(authDir);
    expect(stored).toEqual({ phoneJid: LIVE_SELF, lid: '20000000000500@lid' });
    const live = prepareItem(ownReaction, '2024-03-04T15:00:00.000Z', LIVE_SELF, LIMITS);
    const replayed = prepareItem(ownReaction, '2024-03-04T15:00:00.000Z', stored.phoneJid, LIMITS);
    expect(replayed.row.eventId).toBe(live.row.eventId);
    expect(readStoredAccount(join(authDir, 'missing'))).toEqual({ phoneJid: null, lid: null });
  });
});
