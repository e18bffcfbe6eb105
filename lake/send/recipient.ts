import type { Recipient } from './send-admin-repository.js';

export type { Recipient };

const GROUP_JID = /^\d{5,40}(-\d{5,20})?@g\.us$/;
const PHONE = /^\+?(\d{8,15})$/;

/**
 * True when `jid` is a WhatsApp group JID: `<digits>@g.us`, or the older `<creator>-<time>@g.us`. The one rule
 * of what names a group, for send recipients and for `wa-lake report --group`.
 */
export function isGroupJid(jid: string): boolean {
  return GROUP_JID.test(jid);
}
const PHONE_JID = /^(\d{8,15})@s\.whatsapp\.net$/;

/**
 * Normalizes the `to` of a send request (architecture.md §12): a group JID (`…@g.us`) stays as is; a phone
 * number (`+5511999990000`, `5511999990000`) or phone JID becomes `digits@s.whatsapp.net`.
 *
 * @returns the recipient, or null when `to` is neither (the API answers 422 `WA_ERR_INVALID_RECIPIENT`).
 */
export function normalizeRecipient(to: string): Recipient | null {
  const trimmed = to.trim();
  if (isGroupJid(trimmed)) return { kind: 'group', jid: trimmed };
  const digits = PHONE.exec(trimmed.replaceAll(/[\s()-]/g, ''))?.[1] ?? PHONE_JID.exec(trimmed)?.[1];
  return digits === undefined ? null : { kind: 'phone', jid: `${digits}@s.whatsapp.net` };
}
