/**
 * Synthetic identities and Baileys 7.0.0-rc14 shapes used by `generate-capture.ts`. Every JID and
 * phone number here is made up (the samples' `5500000000…` / `1000000000000…@lid` ranges).
 */

/** Seconds since the epoch of the capture's first event (2025-06-01T10:00:00Z). */
export const T0 = 1_748_772_000;

export const GROUP_A = '120363000000000001@g.us';
export const GROUP_B = '120363000000000002@g.us';
export const COMMUNITY = '120363000000000009@g.us';
export const NEWSLETTER = '120363000000000099@newsletter';
export const STATUS = 'status@broadcast';
export const SELF_PN = '5500000000009@s.whatsapp.net';
export const SELF_LID = '100000000000009@lid';

/** Member n (1..8): LID and phone-number JIDs. */
export const lid = (n: number): string => `10000000000000${n}@lid`;
export const pn = (n: number): string => `550000000000${n}@s.whatsapp.net`;

/** A Baileys message key in a group (LID addressing, with the phone number as `participantAlt`). */
export function groupKey(group: string, id: string, member: number | 'self'): Record<string, unknown> {
  if (member === 'self') return { remoteJid: group, fromMe: true, id, participant: SELF_LID, addressingMode: 'lid' };
  return {
    remoteJid: group,
    fromMe: false,
    id,
    participant: lid(member),
    participantAlt: pn(member),
    addressingMode: 'lid',
  };
}

/** A group text message as `messages.upsert` carries it. */
export function textMessage(
  group: string,
  id: string,
  member: number | 'self',
  seconds: number,
  text: string
): Record<string, unknown> {
  return {
    key: groupKey(group, id, member),
    messageTimestamp: seconds,
    pushName: member === 'self' ? 'Collector' : `Member ${member}`,
    broadcast: false,
    message: {
      conversation: text,
      messageContextInfo: { messageSecret: Buffer.alloc(32, member === 'self' ? 9 : member) },
    },
  };
}

/** A group stub message (membership or setting change), the authoritative record of group changes. */
export function stubMessage(
  group: string,
  id: string,
  author: number,
  seconds: number,
  stubType: number,
  parameters: string[]
): Record<string, unknown> {
  return {
    key: groupKey(group, id, author),
    messageTimestamp: seconds,
    messageStubType: stubType,
    messageStubParameters: parameters,
  };
}

/** One member of a `GroupMetadata.participants` list. */
export const participant = (n: number, admin: 'admin' | 'superadmin' | null): Record<string, unknown> => ({
  id: lid(n),
  phoneNumber: pn(n),
  admin,
});

/** Full `GroupMetadata` as `groupFetchAllParticipating()` returns it (the synthetic `groups.metadata`). */
export function groupMetadata(
  group: string,
  subject: string,
  members: Record<string, unknown>[]
): Record<string, unknown> {
  return {
    id: group,
    addressingMode: 'lid',
    owner: lid(1),
    ownerPn: pn(1),
    subject,
    subjectOwner: lid(1),
    subjectTime: T0 - 86_400,
    creation: T0 - 10 * 86_400,
    desc: `About ${subject}`,
    descId: `DESC${group.slice(0, 16)}`,
    linkedParent: COMMUNITY,
    restrict: false,
    announce: false,
    memberAddMode: false,
    joinApprovalMode: true,
    isCommunity: false,
    size: members.length,
    participants: members,
    ephemeralDuration: 0,
  };
}

/** A `messages.reaction` item: `target` reacted to by `reactor` (undefined participant + fromMe = self). */
export function reaction(
  group: string,
  targetId: string,
  targetAuthor: number,
  reactor: number | 'self',
  text: string,
  ms: number
): Record<string, unknown> {
  const reactionKey =
    reactor === 'self'
      ? { remoteJid: group, fromMe: true, id: `3EB0R${targetId.slice(-6)}SELF${ms % 1000}` }
      : {
          remoteJid: group,
          fromMe: false,
          id: `3EB0R${targetId.slice(-6)}M${reactor}${ms % 1000}`,
          participant: lid(reactor),
        };
  return {
    key: { remoteJid: group, fromMe: false, id: targetId, participant: lid(targetAuthor) },
    reaction: { key: reactionKey, text, senderTimestampMs: ms },
  };
}

/** A Baileys Boom as JSON.stringify renders `lastDisconnect.error` (only its enumerable fields). */
export function serializedBoom(statusCode: number, message: string): Record<string, unknown> {
  return {
    data: null,
    isBoom: true,
    isServer: statusCode >= 500,
    output: { statusCode, payload: { statusCode, error: 'Precondition Required', message }, headers: {} },
  };
}
