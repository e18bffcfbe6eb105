import type { JsonValue } from '../../common/json-value.js';
import { canonicalParticipantKey } from '../../common/whatsapp-jid.js';
import type { ParticipantRef } from './participant-ref.js';

type JsonObject = { [key: string]: JsonValue };

/**
 * Marks the membership facts about the linked account itself (ADR 0007): a participant named
 * by one of `event.accountJids` (as LID, phone JID or id), or the one participant of a leave stub the
 * account sent itself (`key.fromMe`: the leaver is the actor). Mutates `memberships` in place.
 */
export function markAccountFacts(
  memberships: Array<{ participant: ParticipantRef; isAccount?: boolean }>,
  event: { type: string; accountJids?: readonly string[] },
  payload: JsonObject
): void {
  const own = new Set((event.accountJids ?? []).map(canonicalParticipantKey));
  const key = payload['key'];
  const isFromMe = key !== null && typeof key === 'object' && !Array.isArray(key) && key['fromMe'] === true;
  const isOwnLeave = event.type === 'messages.upsert' && isFromMe && isLeaveStub(payload) && memberships.length === 1;
  for (const fact of memberships) {
    const { lid, phoneJid, participantId } = fact.participant;
    const isNamed = [lid, phoneJid, participantId].some((jid) => jid !== null && own.has(jid));
    if (isNamed || isOwnLeave) fact.isAccount = true;
  }
}

/** `GROUP_PARTICIPANT_LEAVE` (32) in rc14's `WebMessageInfo.StubType`, by number or name. */
const isLeaveStub = (payload: JsonObject): boolean =>
  payload['messageStubType'] === 32 || payload['messageStubType'] === 'GROUP_PARTICIPANT_LEAVE';

/**
 * The linked account's JIDs as a delivery names them (ADR 0019): its phone JID first, then its LID, so the
 * account is known under both, as the membership facts and the read model need.
 */
export function accountJidsOf(accountJid: string | null, accountLid: string | null): string[] {
  return [accountJid, accountLid].filter((jid): jid is string => jid !== null);
}
