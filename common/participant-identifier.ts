/**
 * The member identifiers of `wa-lake forget --participant` (architecture.md §14, issue #13 item 4): a LID
 * (`123@lid`), a phone JID (`5511…@s.whatsapp.net`) or a phone number (`+55 11 9…`, digits only kept).
 */
export interface ParticipantIdentifiers {
  /** Full JIDs without a device suffix, e.g. `5511987654321@s.whatsapp.net`, `1000…@lid`. */
  jids: string[];
}

/** Thrown when a participant identifier is neither a LID, a phone JID nor a phone number. */
export class InvalidParticipantIdentifierError extends Error {
  override readonly name = 'InvalidParticipantIdentifierError';
}

const JID_PATTERN = /^(\d{5,20})(?::\d+)?@(s\.whatsapp\.net|lid|c\.us)$/;
/** A person JID as WhatsApp writes it: user, optional agent (`_1`), optional device (`:3`), server. */
const PERSON_JID = /^([^@:_]+)(?:_\d+)?(?::\d+)?@(s\.whatsapp\.net|lid|c\.us)$/;

/**
 * The one participant key of a person JID (issue #27 case 1): the same person writes from the phone
 * (`20000000000993@lid`) and from WhatsApp Web or Desktop (`20000000000993:3@lid`, device 3), so the device
 * and agent suffixes are dropped, and `c.us` becomes `s.whatsapp.net` (Baileys' `jidNormalizedUser`). Every
 * participant key the projections, the read model, the links and the account's JIDs make goes through here.
 * Anything else (a group JID, a bare id, text) comes back unchanged, as does a JID already canonical — at
 * the cost of one `indexOf` on the hot path.
 */
export function canonicalParticipantKey(jid: string): string {
  if (jid.indexOf(':') === -1 && jid.indexOf('_') === -1 && !jid.endsWith('@c.us')) return jid;
  const person = PERSON_JID.exec(jid);
  if (!person) return jid;
  const server = person[2] === 'c.us' ? 's.whatsapp.net' : person[2];
  return `${person[1]}@${server}`;
}

/**
 * The canonical JID of one participant identifier (`c.us` becomes `s.whatsapp.net`; a device suffix is
 * dropped; a phone number keeps its digits): the key the projections and `whatsapp_member_links` use, so
 * `members link`, `members import`, `members unlink` and `forget` all read participants by this one rule
 * (issue #13 item 4, issue #11 item 3).
 * `name`: what the error message calls the value (`--participant` for forget, `participant` for members link).
 * @throws InvalidParticipantIdentifierError for anything else (a group JID, a name, too few digits).
 */
export function canonicalParticipantJid(input: string, name: string): string {
  const trimmed = input.trim();
  const jid = JID_PATTERN.exec(trimmed);
  if (jid) return canonicalParticipantKey(trimmed);
  const digits = trimmed.replace(/[\s()+-]/g, '');
  if (/^\d{8,15}$/.test(digits)) return `${digits}@s.whatsapp.net`;
  throw new InvalidParticipantIdentifierError(
    `${name} must be a LID (…@lid), a phone JID (…@s.whatsapp.net) or a phone number, got "${input}"`
  );
}

/**
 * Parses one `--participant` identifier into canonical JIDs (`canonicalParticipantJid`).
 * @throws InvalidParticipantIdentifierError for anything that is not a participant.
 */
export function parseParticipantIdentifier(input: string, name = '--participant'): ParticipantIdentifiers {
  return { jids: [canonicalParticipantJid(input, name)] };
}

/** The user parts (digits) of JIDs: what a JID looks like anywhere in stored JSON, with any device suffix. */
export function jidUsers(jids: readonly string[]): string[] {
  return [...new Set(jids.map((jid) => jid.split('@')[0]?.split(':')[0] ?? '').filter((user) => /^\d+$/.test(user)))];
}

/**
 * A regular expression source matching any JID (with an optional device suffix) of these user parts, in
 * the subset PostgreSQL's ARE and JavaScript share. Digits only, so nothing needs escaping.
 */
export function jidPatternSource(users: readonly string[]): string {
  return `(?<![0-9])(${users.join('|')})(:[0-9]+)?@(s\\.whatsapp\\.net|lid|c\\.us)`;
}
