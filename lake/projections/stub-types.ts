import type { JsonValue } from '../../common/json-value.js';
import type { MembershipRole } from './participant-ref.js';

/**
 * `WebMessageInfo.StubType` values from Baileys 7.0.0-rc14 `WAProto/index.d.ts`, keyed by number and by
 * name (the collector sends numbers, architecture.md §4; names are accepted for old captures). The participant
 * set follows Baileys' own `process-message.js`: ADD/INVITE/ADD_REQUEST_JOIN add, REMOVE/LEAVE remove.
 */
const PARTICIPANT_STUBS: ReadonlyArray<[number, string, { isPresent: boolean; role: MembershipRole | null }]> = [
  [27, 'GROUP_PARTICIPANT_ADD', { isPresent: true, role: null }],
  [31, 'GROUP_PARTICIPANT_INVITE', { isPresent: true, role: null }],
  [71, 'GROUP_PARTICIPANT_ADD_REQUEST_JOIN', { isPresent: true, role: null }],
  [28, 'GROUP_PARTICIPANT_REMOVE', { isPresent: false, role: null }],
  [32, 'GROUP_PARTICIPANT_LEAVE', { isPresent: false, role: null }],
  [29, 'GROUP_PARTICIPANT_PROMOTE', { isPresent: true, role: 'admin' }],
  [30, 'GROUP_PARTICIPANT_DEMOTE', { isPresent: true, role: 'member' }],
];

/** Participant stub type (number or name, as a string) → membership effect. */
export const STUB_ACTIONS: ReadonlyMap<string, { isPresent: boolean; role: MembershipRole | null }> = new Map(
  PARTICIPANT_STUBS.flatMap(
    ([number, name, effect]) =>
      [
        [String(number), effect],
        [name, effect],
      ] as const
  )
);

// Baileys reads 'on' (notifications) and 'true' as enabled (process-message.js); anything else stated is off.
const onOff = (value: JsonValue | undefined): JsonValue =>
  value === undefined ? null : value === 'on' || value === 'true' || value === true;
const text = (value: JsonValue | undefined): string | null => (typeof value === 'string' ? value : null);
const seconds = (value: JsonValue | undefined): number | null => {
  const count = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isSafeInteger(count) && count >= 0 ? count : null;
};
const allMembersAdd = (value: JsonValue | undefined): JsonValue =>
  value === undefined ? null : value === 'all_member_add';
const unlinked = (): null => null;

/**
 * Every group-settings stub type of rc14's `WebMessageInfo.StubType` (ADR 0007), with the
 * field it writes — the snapshot's key (`GroupMetadata`) where the snapshot has one, so stubs, protocol
 * messages, `groups.update` and snapshots all write the same field. Types with a known parameter
 * format follow Baileys' `process-message.js` / `messages-recv.js`; the others keep their first
 * parameter as stated. Left out on purpose: GROUP_CHANGE_ICON (22, a picture, not a setting),
 * DISAPPEARING_MODE (130, the default timer of a person's new chats), and stubs about one request or
 * one bounced message (GROUP_ANNOUNCE_MODE_MESSAGE_BOUNCE 44, …).
 */
const GROUP_FIELD_STUBS: ReadonlyArray<
  [number, string, { field: string; read: (param: JsonValue | undefined) => JsonValue }]
> = [
  [20, 'GROUP_CREATE', { field: 'subject', read: text }],
  [21, 'GROUP_CHANGE_SUBJECT', { field: 'subject', read: text }],
  [23, 'GROUP_CHANGE_INVITE_LINK', { field: 'inviteCode', read: text }],
  [24, 'GROUP_CHANGE_DESCRIPTION', { field: 'description', read: text }],
  [25, 'GROUP_CHANGE_RESTRICT', { field: 'restrict', read: onOff }],
  [26, 'GROUP_CHANGE_ANNOUNCE', { field: 'announce', read: onOff }],
  [69, 'GROUP_CHANGE_NO_FREQUENTLY_FORWARDED', { field: 'noFrequentlyForwarded', read: onOff }],
  [72, 'CHANGE_EPHEMERAL_SETTING', { field: 'ephemeralDuration', read: seconds }],
  [133, 'GROUP_INVITE_LINK_GROWTH_LOCKED', { field: 'inviteLinkGrowthLocked', read: onOff }],
  [134, 'COMMUNITY_LINK_PARENT_GROUP', { field: 'linkedParent', read: text }],
  [137, 'COMMUNITY_UNLINK_PARENT_GROUP', { field: 'linkedParent', read: unlinked }],
  [145, 'GROUP_MEMBERSHIP_JOIN_APPROVAL_MODE', { field: 'joinApprovalMode', read: onOff }],
  [171, 'GROUP_MEMBER_ADD_MODE', { field: 'memberAddMode', read: allMembersAdd }],
  [173, 'COMMUNITY_CHANGE_DESCRIPTION', { field: 'description', read: text }],
  [176, 'COMMUNITY_ALLOW_MEMBER_ADDED_GROUPS', { field: 'allowMemberAddedGroups', read: onOff }],
  [182, 'REPORT_TO_ADMIN_ENABLED_STATUS', { field: 'reportToAdminEnabled', read: onOff }],
  [186, 'GROUP_CHANGE_RECENT_HISTORY_SHARING', { field: 'recentHistorySharing', read: onOff }],
  [217, 'GROUP_MEMBER_LINK_MODE', { field: 'memberLinkMode', read: text }],
  [221, 'GROUP_MEMBER_SHARE_GROUP_HISTORY_MODE', { field: 'memberShareGroupHistoryMode', read: text }],
];

/** The settings stub types, for tests and docs: number, name and the field each writes. */
export const SETTINGS_STUB_TYPES: ReadonlyArray<{ stubType: number; name: string; field: string }> =
  GROUP_FIELD_STUBS.map(([stubType, name, rule]) => ({ stubType, name, field: rule.field }));

/** Group-settings stub type (number or name) → the field it writes and how to read `messageStubParameters[0]`. */
export const STUB_GROUP_FIELDS: ReadonlyMap<
  string,
  { field: string; read: (param: JsonValue | undefined) => JsonValue }
> = new Map(
  GROUP_FIELD_STUBS.flatMap(
    ([number, name, rule]) =>
      [
        [String(number), rule],
        [name, rule],
      ] as const
  )
);
