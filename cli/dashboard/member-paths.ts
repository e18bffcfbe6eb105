import { createHmac } from 'node:crypto';
import { AES_GCM_IV_BYTES, openAesGcm, sealAesGcm } from '../../common/aes-gcm-box.js';
import { canonicalPersonJid, isPnUser } from '../../common/whatsapp-jid.js';

/** How the dashboard writes a participant in a member page's address, and reads it back. */
export interface MemberPaths {
  /** The path segment of a participant: a LID as it is, a phone JID sealed (`p-…`). */
  segmentOf(participantId: string): string;
  /** The canonical participant of a path segment (a LID, a phone JID, or a sealed phone JID); undefined for none. */
  participantOf(segment: string): string | undefined;
}

const SEALED = 'p-';

/**
 * Member paths keyed by the dashboard token (docs/engagement.md "Dashboard"): a phone JID in a link is sealed with
 * AES-256-GCM under a key derived from the token, its IV derived from the JID, so a person's link is the same on every
 * page and every start with the same token, and no address the dashboard writes (history, bookmarks, a proxy's log)
 * holds a phone number. LIDs stay readable, and a LID or phone JID typed into the address still opens its page.
 */
export function memberPathsFor(token: string): MemberPaths {
  const key = createHmac('sha256', token).update('wa-lake dashboard member paths').digest();
  return {
    segmentOf(participantId) {
      if (!isPnUser(participantId)) return participantId;
      const iv = createHmac('sha256', key).update(participantId).digest().subarray(0, AES_GCM_IV_BYTES);
      return SEALED + sealAesGcm(key, iv, participantId).toString('base64url');
    },
    participantOf(segment) {
      if (!segment.startsWith(SEALED)) return canonicalPersonJid(segment);
      try {
        return canonicalPersonJid(openAesGcm(key, Buffer.from(segment.slice(SEALED.length), 'base64url')));
      } catch {
        return undefined; // sealed under another token, altered or cut short
      }
    },
  };
}
