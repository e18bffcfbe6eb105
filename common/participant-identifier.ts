import { canonicalPersonJid, phoneDigitsOfNumber, phoneJidOf } from './whatsapp-jid.js';

/**
 * The member identifiers of `wa-lake forget --participant` (architecture.md §14, ADR 0010): a LID
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

/**
 * The canonical JID of one participant identifier (`canonicalPersonJid`: `c.us` becomes `s.whatsapp.net`, a
 * device suffix is dropped; a phone number becomes the phone JID of its digits, `phoneDigitsOfNumber`): the key the projections and
 * `whatsapp_member_links` use, so `members link`, `members import`, `members unlink` and `forget` all read
 * participants by this one rule (ADR 0010).
 * `name`: what the error message calls the value (`--participant` for forget, `participant` for members link).
 * `alsoAccepted`: the caller's other forms, listed in the error (forget's `name:NAME`, ADR 0023).
 * @throws InvalidParticipantIdentifierError for anything else (a group JID, a name, too few digits).
 */
export function canonicalParticipantJid(input: string, name: string, alsoAccepted: readonly string[] = []): string {
  const trimmed = input.trim();
  const jid = canonicalPersonJid(trimmed);
  if (jid !== undefined) return jid;
  const digits = phoneDigitsOfNumber(trimmed);
  if (digits !== undefined) return phoneJidOf(digits);
  const forms = ['a LID (…@lid)', 'a phone JID (…@s.whatsapp.net)', 'a phone number', ...alsoAccepted];
  throw new InvalidParticipantIdentifierError(
    `${name} must be ${forms.slice(0, -1).join(', ')} or ${forms.at(-1) ?? ''}, got "${input}"`
  );
}

/**
 * Parses one `--participant` identifier into canonical JIDs (`canonicalParticipantJid`).
 * @throws InvalidParticipantIdentifierError for anything that is not a participant.
 */
export function parseParticipantIdentifier(
  input: string,
  name = '--participant',
  alsoAccepted: readonly string[] = []
): ParticipantIdentifiers {
  return { jids: [canonicalParticipantJid(input, name, alsoAccepted)] };
}
