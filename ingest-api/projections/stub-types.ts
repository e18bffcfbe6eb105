import type { JsonValue } from '../sanitize.js';
import type { MembershipRole } from './participant-ref.js';

/**
 * `WebMessageInfo.StubType` values from Baileys 7.0.0-rc14 `WAProto/index.d.ts`, keyed by number and by
 * name (the collector sends numbers, DESIGN §4; names are accepted for old captures). The participant
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

const onOff = (value: JsonValue | undefined): boolean => value === 'on';
const text = (value: JsonValue | undefined): string | null => (typeof value === 'string' ? value : null);
const GROUP_FIELD_STUBS: ReadonlyArray<
  [number, string, { field: string; read: (param: JsonValue | undefined) => JsonValue }]
> = [
  [20, 'GROUP_CREATE', { field: 'subject', read: text }],
  [21, 'GROUP_CHANGE_SUBJECT', { field: 'subject', read: text }],
  [24, 'GROUP_CHANGE_DESCRIPTION', { field: 'description', read: text }],
  [25, 'GROUP_CHANGE_RESTRICT', { field: 'restrict', read: onOff }],
  [26, 'GROUP_CHANGE_ANNOUNCE', { field: 'announce', read: onOff }],
];

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
