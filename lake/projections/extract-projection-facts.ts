import type { JsonValue } from '../../common/json-value.js';
import { isJidGroup, isLidUser, isPnUser } from '../../common/whatsapp-jid.js';
import { fromIds, parseParticipantRef, toRole, type MembershipRole, type ParticipantRef } from './participant-ref.js';
import { markAccountFacts } from './account-membership.js';
import { readProtocolSettings } from './protocol-settings.js';
import { STUB_ACTIONS, STUB_GROUP_FIELDS } from './stub-types.js';

/** The inputs a projection needs from one stored event. */
export interface ProjectionEvent {
  eventId: string;
  type: string;
  chatJid: string | null;
  payload: JsonValue;
  /** Event time: `occurred_at`, else `captured_at`, else `received_at` (architecture.md §9: event times). */
  effectiveAt: Date;
  /** True when the payload carried the event's own time (`occurred_at` not null). ADR 0007. */
  hasOwnTime: boolean;
  /** JIDs of the linked account (`account_jid` of the delivery), to tell its own removal (ADR 0007). */
  accountJids?: readonly string[];
  /**
   * Where the collector got the event (`whatsapp_event_logs.source`, ADR 0016): in a `history` or `on_demand`
   * copy a REVOKE stub stands for a message whose content the lake may hold from live. Absent = `live`.
   */
  source?: string;
}

/** One statement about one participant of the event's group. */
export interface MembershipFact {
  participant: ParticipantRef;
  isPresent: boolean;
  role: MembershipRole | null;
  /** True when the participant is the linked account itself (ADR 0007). */
  isAccount?: boolean;
}

/** Everything the projections learn from one event (pure data, no I/O). */
export interface ProjectionFacts {
  groupJid: string | null;
  /**
   * Precedence of the event's writes (ADR 0007): true for an event with its own time and for a
   * snapshot (observed at its capture time); false for a hint timed only by its capture.
   */
  isTimed: boolean;
  /** Group field writes, last-writer-wins per field. */
  groupFields: Record<string, JsonValue>;
  /** Full member list of a snapshot with at least one participant (null otherwise: never empties a group). */
  snapshot: {
    members: Record<string, MembershipRole>;
    document: JsonValue;
    /** False when it lists fewer participants than its `size`: it then removes no one (architecture.md §9). */
    isComplete: boolean;
  } | null;
  memberships: MembershipFact[];
  /** Every participant named, for `whatsapp_participants` and LID↔phone aliases. */
  participants: ParticipantRef[];
}

/** Group settings copied from snapshots and `groups.update` (architecture.md §9 "settings"); stubs: `stub-types.ts`. */
const SETTINGS_KEYS = [
  'restrict',
  'announce',
  'memberAddMode',
  'joinApprovalMode',
  'ephemeralDuration',
  'isCommunity',
  'isCommunityAnnounce',
  'linkedParent',
  'owner',
  'creation',
  // Written by GROUP_CHANGE_INVITE_LINK stubs and their groups.update hint (ADR 0007).
  'inviteCode',
];
const GPU_ACTIONS: ReadonlyMap<string, { isPresent: boolean; role: MembershipRole | null }> = new Map([
  ['add', { isPresent: true, role: null }],
  ['remove', { isPresent: false, role: null }],
  ['promote', { isPresent: true, role: 'admin' }],
  ['demote', { isPresent: true, role: 'member' }],
]);

type JsonObject = { [key: string]: JsonValue };
const asObject = (value: JsonValue | undefined): JsonObject | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
const asString = (value: JsonValue | undefined): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;

/**
 * Reads the projection facts of one event (architecture.md §9, ADR 0004): `groups.metadata` / `groups.upsert`
 * snapshots, `groups.update`, `group-participants.update`, participant and settings stub messages in
 * `messages.upsert`, and `lid-mapping.update`. Other types yield empty facts.
 */
export function extractProjectionFacts(event: ProjectionEvent): ProjectionFacts {
  const facts: ProjectionFacts = {
    groupJid: null,
    isTimed: event.hasOwnTime || SNAPSHOT_TYPES.has(event.type),
    groupFields: {},
    snapshot: null,
    memberships: [],
    participants: [],
  };
  const payload = asObject(event.payload);
  if (!payload) return facts;
  switch (event.type) {
    case 'groups.metadata':
    case 'groups.upsert':
      readSnapshot(payload, facts);
      break;
    case 'groups.update':
      facts.groupJid = asString(payload['id']);
      Object.assign(facts.groupFields, pickGroupFields(payload, false));
      break;
    case 'group-participants.update':
      readParticipantsUpdate(payload, facts);
      break;
    case 'messages.upsert':
      readStubMessage(payload, facts);
      readProtocolMessage(payload, facts);
      break;
    case 'lid-mapping.update':
      addIdentity(facts, asString(payload['lid']), asString(payload['pn']));
      break;
    default:
      break;
  }
  markAccountFacts(facts.memberships, event, payload);
  return facts;
}

/** Snapshot types: observed at their capture time, so they rank as timed (ADR 0007). */
const SNAPSHOT_TYPES: ReadonlySet<string> = new Set(['groups.metadata', 'groups.upsert']);

function pickGroupFields(payload: JsonObject, isSnapshot: boolean): Record<string, JsonValue> {
  const writes: Record<string, JsonValue> = {};
  if (typeof payload['subject'] === 'string') writes['subject'] = payload['subject'];
  if (typeof payload['desc'] === 'string' || isSnapshot) writes['description'] = asString(payload['desc']);
  for (const key of SETTINGS_KEYS) if (payload[key] !== undefined) writes[key] = payload[key] ?? null;
  return writes;
}

function readSnapshot(payload: JsonObject, facts: ProjectionFacts): void {
  facts.groupJid = asString(payload['id']);
  Object.assign(facts.groupFields, pickGroupFields(payload, true));
  addIdentity(facts, asString(payload['owner']), asString(payload['ownerPn']));
  const list = Array.isArray(payload['participants']) ? payload['participants'] : [];
  // A Map, then own properties: a participant id such as `__proto__` must stay plain data.
  const members = new Map<string, MembershipRole>();
  for (const raw of list) {
    const ref = parseParticipantRef(raw);
    if (!ref) continue;
    facts.participants.push(ref);
    members.set(ref.participantId, ref.role ?? 'member');
  }
  // Community announcement groups list only some participants to non-admins: such a list removes no one.
  const size = typeof payload['size'] === 'number' ? payload['size'] : Number.NaN;
  const isComplete = !(list.length < size);
  if (members.size > 0) facts.snapshot = { members: Object.fromEntries(members), document: payload, isComplete };
}

function readParticipantsUpdate(payload: JsonObject, facts: ProjectionFacts): void {
  facts.groupJid = asString(payload['id']);
  addIdentity(facts, asString(payload['author']), asString(payload['authorPn']));
  const action = GPU_ACTIONS.get(asString(payload['action']) ?? '');
  const list = Array.isArray(payload['participants']) ? payload['participants'] : [];
  for (const raw of list) {
    const ref = parseParticipantRef(raw);
    if (!ref) continue;
    facts.participants.push(ref);
    if (action)
      facts.memberships.push({
        participant: ref,
        isPresent: action.isPresent,
        role: action.isPresent ? (action.role ?? ref.role ?? 'member') : null,
      });
  }
}

function readStubMessage(payload: JsonObject, facts: ProjectionFacts): void {
  const key = asObject(payload['key']);
  const groupJid = asString(key?.['remoteJid']);
  const rawStubType = payload['messageStubType'];
  const stubType = typeof rawStubType === 'number' || typeof rawStubType === 'string' ? String(rawStubType) : null;
  if (!groupJid || !isJidGroup(groupJid) || stubType === null) return;
  const action = STUB_ACTIONS.get(stubType);
  const fieldRule = STUB_GROUP_FIELDS.get(stubType);
  // Other stubs (revoke, ciphertext, …) project nothing: they stay on the fast path without a transaction.
  if (!action && !fieldRule) return;
  facts.groupJid = groupJid;
  const params = Array.isArray(payload['messageStubParameters']) ? payload['messageStubParameters'] : [];
  addIdentity(facts, asString(key?.['participant']), asString(key?.['participantAlt']));
  if (action) {
    for (const raw of params) {
      const ref = parseParticipantRef(raw);
      if (!ref) continue;
      facts.participants.push(ref);
      facts.memberships.push({
        participant: ref,
        isPresent: action.isPresent,
        role: action.isPresent ? (action.role ?? 'member') : null,
      });
    }
    return;
  }
  if (fieldRule) facts.groupFields[fieldRule.field] = fieldRule.read(params[0]);
}

/** Settings carried by protocol messages (ephemeral timer …) of a group, at the message's own time. */
function readProtocolMessage(payload: JsonObject, facts: ProjectionFacts): void {
  const groupJid = asString(asObject(payload['key'])?.['remoteJid']);
  if (!groupJid || !isJidGroup(groupJid)) return;
  const writes = readProtocolSettings(payload['message']);
  if (Object.keys(writes).length === 0) return;
  facts.groupJid = groupJid;
  Object.assign(facts.groupFields, writes);
}

function addIdentity(facts: ProjectionFacts, first: string | null, second: string | null): void {
  if (!first) return;
  const ref = fromIds(first, second ?? undefined, undefined, null);
  if (isLidUser(ref.participantId) || isPnUser(ref.participantId))
    facts.participants.push({ ...ref, role: toRole(undefined) });
}

/** True when an event changes no projection (plain messages, reactions, …): the raw insert is enough. */
export function hasProjectionWork(facts: ProjectionFacts): boolean {
  return facts.groupJid !== null || facts.participants.length > 0;
}
