import { redactQuotedMessage } from './redact-message-body.js';
import { jidDecode, jidPatternSource, mentionPatternSource, personJidUsersIn } from './whatsapp-jid.js';

/** The server of erasure pseudonyms (`erased-<uuid>@erased`, ADR 0010). */
export const PSEUDONYM_SERVER = 'erased';

/** Whether `jid` is an erasure pseudonym (`erased-<uuid>@erased`). */
export function isErasurePseudonym(jid: string): boolean {
  return jidDecode(jid)?.server === PSEUDONYM_SERVER;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * True when `jid` names one of `users` (any server, agent or device), or is an erasure pseudonym: a quote of a
 * member erased earlier is the erased member's text too.
 */
function isErasedAuthor(jid: Json | undefined, users: ReadonlySet<string>): boolean {
  if (typeof jid !== 'string') return false;
  if (isErasurePseudonym(jid)) return true;
  return personJidUsersIn(jid).some((user) => users.has(user));
}

/** `value` with every quoted message whose author (`participant` beside it) is erased redacted; same object when none. */
function redactQuotesIn(value: Json, users: ReadonlySet<string>): Json {
  if (Array.isArray(value)) {
    const items = value.map((item) => redactQuotesIn(item, users));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let result: { [key: string]: Json } | undefined;
  for (const [key, child] of Object.entries(value)) {
    const isQuote = key === 'quotedMessage' && isErasedAuthor(value['participant'], users);
    const next = isQuote ? (redactQuotedMessage(child) as Json) : redactQuotesIn(child, users);
    if (isQuote ? JSON.stringify(next) === JSON.stringify(child) : next === child) continue;
    result ??= { ...value };
    result[key] = next;
  }
  return result ?? value;
}

/**
 * Erases a member from the JSON text of a stored event written by anyone (architecture.md §14, ADR 0027): a quoted
 * copy of the member's message (`contextInfo.quotedMessage` beside a `participant` of theirs) loses its content as
 * their own message does; a mention of them in text (`@<phone digits>`, `@<lid digits>`) becomes
 * `@<pseudonym's user part>`; every JID of theirs becomes `pseudonym`. Otherwise the text of other members would tie
 * the pseudonym back to the phone number. Pure; `text` comes back unchanged (the same string) when nothing names them.
 *
 * @param text - the stored JSON (an outbox body, a raw payload, a delivery's body text).
 * @param users - the member's JID user parts (digits, `jidUsers`).
 * @param pseudonym - `erased-<uuid>@erased`.
 */
export function eraseMemberReferences(text: string, users: readonly string[], pseudonym: string): string {
  if (users.length === 0) return text;
  let result = text;
  if (text.includes('"quotedMessage"')) {
    const parsed = JSON.parse(text) as Json;
    const redacted = redactQuotesIn(parsed, new Set(users));
    if (redacted !== parsed) result = JSON.stringify(redacted);
  }
  return result
    .replace(new RegExp(mentionPatternSource(users), 'g'), `@${pseudonymMentionName(pseudonym)}`)
    .replace(new RegExp(jidPatternSource(users), 'g'), pseudonym);
}

/** What a mention of an erased member reads in text: the pseudonym's user part (`erased-<uuid>`). */
export function pseudonymMentionName(pseudonym: string): string {
  return jidDecode(pseudonym)?.user ?? pseudonym;
}
