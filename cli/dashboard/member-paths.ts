import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { canonicalPersonJid, isPnUser } from '../../common/whatsapp-jid.js';

/** How the dashboard writes a participant in a member page's address, and reads it back. */
export interface MemberPaths {
  /** The path segment of a participant: a LID as it is, a phone JID sealed (`p-…`). */
  segmentOf(participantId: string): string;
  /** The canonical participant of a path segment (a LID, a phone JID, or a sealed phone JID); undefined for none. */
  participantOf(segment: string): string | undefined;
}

const SEALED = 'p-';
const IV_BYTES = 12;
const TAG_BYTES = 16;

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
      const iv = createHmac('sha256', key).update(participantId).digest().subarray(0, IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([iv, cipher.update(participantId, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return SEALED + sealed.toString('base64url');
    },
    participantOf(segment) {
      if (!segment.startsWith(SEALED)) return canonicalPersonJid(segment);
      const sealed = Buffer.from(segment.slice(SEALED.length), 'base64url');
      if (sealed.length <= IV_BYTES + TAG_BYTES) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      try {
        const jid = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, -TAG_BYTES)), decipher.final()]);
        return canonicalPersonJid(jid.toString('utf8'));
      } catch {
        return undefined; // sealed under another token, or altered
      }
    },
  };
}
