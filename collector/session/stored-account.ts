import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jidNormalizedUser } from '@whiskeysockets/baileys';

/** The linked account as the auth folder remembers it: its phone JID and LID (device suffix removed), or null. */
export interface StoredAccount {
  phoneJid: string | null;
  lid: string | null;
}

/**
 * The account of the auth folder's `creds.json` (`me.id`, `me.lid`, which Baileys writes at login), for a
 * replay, which has no session to ask (ADR 0019): the replayed account's own reactions then get the same
 * `event_id` as live (the reactor is the account's JID), and its own messages the `account_jid` they need.
 * Reads only `me`; nothing else of the file is kept. A missing or unreadable file gives nulls.
 */
export function readStoredAccount(authDir: string): StoredAccount {
  try {
    const creds = JSON.parse(readFileSync(join(authDir, 'creds.json'), 'utf8')) as {
      me?: { id?: unknown; lid?: unknown };
    };
    const normalized = (jid: unknown): string | null =>
      typeof jid === 'string' && jid.includes('@') ? jidNormalizedUser(jid) || null : null;
    return { phoneJid: normalized(creds.me?.id), lid: normalized(creds.me?.lid) };
  } catch {
    return { phoneJid: null, lid: null };
  }
}
