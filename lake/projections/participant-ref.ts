import type { JsonValue } from '../../common/json-value.js';
import { canonicalParticipantKey, isLidUser, isPnUser } from '../../common/whatsapp-jid.js';

/** Membership role in a group (architecture.md §9). */
export type MembershipRole = 'member' | 'admin' | 'superadmin';

/** One participant as named by an event, resolved LID-first (architecture.md §9). */
export interface ParticipantRef {
  /** Identity key: the LID when the event gives one, otherwise the phone-number JID (or the raw id). */
  participantId: string;
  lid: string | null;
  /** Phone-number JID (`…@s.whatsapp.net`); never a LID. */
  phoneJid: string | null;
  /** Role the event states (`admin` attribute), or null when it states none. */
  role: MembershipRole | null;
}

/** Maps Baileys' `admin` attribute (`null | 'admin' | 'superadmin'`) to a role; anything else → null. */
export function toRole(admin: JsonValue | undefined): MembershipRole | null {
  if (admin === 'admin' || admin === 'superadmin') return admin;
  if (admin === null) return 'member';
  return null;
}

/**
 * Resolves a participant as Baileys 7 writes it: an object `{id, phoneNumber?, lid?, admin?}` (group
 * metadata, `group-participants.update`, and the JSON strings of participant stub parameters), or a
 * bare JID string (older stubs). Returns null when no usable id is present.
 */
export function parseParticipantRef(raw: JsonValue | undefined): ParticipantRef | null {
  let value = raw;
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      value = JSON.parse(value) as JsonValue;
    } catch {
      return null;
    }
  }
  if (typeof value === 'string') return value.length > 0 ? fromIds(value, undefined, undefined, null) : null;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = value['id'];
  if (typeof id !== 'string' || id.length === 0) return null;
  return fromIds(id, value['lid'], value['phoneNumber'], toRole(value['admin']));
}

/**
 * The identity key of an id and one alternate (Baileys' `participant` / `participantAlt`): the same
 * `participantId` as {@link fromIds}`(id, alternate, undefined, null)` — the LID, else the phone JID, else
 * `id`, canonical (`canonicalParticipantKey`) — without building a reference (it runs for every stored
 * message, ADR 0013).
 */
export function lidFirstId(rawId: string, alternate: JsonValue | undefined): string {
  const id = canonicalParticipantKey(rawId);
  if (isLidUser(id)) return id;
  const alt = typeof alternate === 'string' ? canonicalParticipantKey(alternate) : null;
  if (alt !== null && isLidUser(alt)) return alt;
  if (isPnUser(id)) return id;
  return alt !== null && isPnUser(alt) ? alt : id;
}

/**
 * Builds a reference from an id and its optional alternates (either may be the LID or the phone JID), every
 * JID in its canonical form (`canonicalParticipantKey`: no device suffix).
 */
export function fromIds(
  id: string,
  lidField: JsonValue | undefined,
  phoneField: JsonValue | undefined,
  role: MembershipRole | null
): ParticipantRef {
  // One key per person, whatever device wrote (ADR 0019): every id is canonical before it is compared.
  const candidates = [id, lidField, phoneField].flatMap((jid) =>
    typeof jid === 'string' ? [canonicalParticipantKey(jid)] : []
  );
  const lid = candidates.find(isLidUser) ?? null;
  const phoneJid = candidates.find(isPnUser) ?? null;
  return { participantId: lid ?? phoneJid ?? candidates[0] ?? id, lid, phoneJid, role };
}
