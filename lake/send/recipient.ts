import { isWellFormedGroupJid, phoneDigitsOfJid, phoneDigitsOfNumber, phoneJidOf } from '../../common/whatsapp-jid.js';
import type { Recipient } from './send-admin-repository.js';

export type { Recipient };

/**
 * Normalizes the `to` of a send request (architecture.md §12): a group JID (`isWellFormedGroupJid`) stays as
 * is; a phone number (`+5511999990000`, `5511999990000`, `005511999990000`: `phoneDigitsOfNumber`) or phone JID becomes its phone JID.
 *
 * @returns the recipient, or null when `to` is neither (the API answers 422 `WA_ERR_INVALID_RECIPIENT`).
 */
export function normalizeRecipient(to: string): Recipient | null {
  const trimmed = to.trim();
  if (isWellFormedGroupJid(trimmed)) return { kind: 'group', jid: trimmed };
  const digits = phoneDigitsOfNumber(trimmed) ?? phoneDigitsOfJid(trimmed);
  return digits === undefined ? null : { kind: 'phone', jid: phoneJidOf(digits) };
}
