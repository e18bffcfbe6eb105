import type { JsonValue } from '../common/json-value.js';

/** One volatile field: left out of `hash(x)` at any depth (architecture.md §4), never out of the wire body. */
export interface VolatileFieldRule {
  /** `exact`: the key equals `name`; `suffix`: the key ends with `name` (and is longer). */
  match: 'exact' | 'suffix';
  name: string;
  /**
   * Only when the normalized value has this JSON type: `status` is volatile as a message status enum
   * (a number), not as a call state (`'offer'`); `…Pn` as a JID string, not as the flag `shareOwnPn`.
   */
  valueKind?: 'number' | 'string';
  reason: string;
  /**
   * True for a rule the first collector did not have: it hashed these fields, so its ids of items
   * carrying them differ (`deriveLegacyEventId`).
   */
  isNewSinceFirstCollector?: true;
}

/**
 * Fields that change without a real change of the item. The first block is architecture.md §4's list; the
 * second was decided from Baileys rc14 data (samples 01, 08, 12 and the GroupMetadata type).
 */
export const VOLATILE_FIELDS: readonly VolatileFieldRule[] = [
  {
    match: 'exact',
    name: 'pushName',
    reason: 'sender display name at send time; changes with the profile, not the message',
  },
  {
    match: 'exact',
    name: 'status',
    valueKind: 'number',
    reason: 'delivery status (PENDING…READ) moves on after the fact',
  },
  { match: 'exact', name: 'broadcast', reason: 'transport flag, differs between live and history decodes' },
  { match: 'exact', name: 'category', reason: 'transport category (e.g. peer), not content' },
  { match: 'exact', name: 'retryCount', reason: 'decryption retry counter of this device' },
  { match: 'exact', name: 'verifiedBizName', reason: 'business name at send time, profile data' },
  {
    match: 'suffix',
    name: 'Alt',
    reason: 'alternate address (LID vs phone) of a JID already in the item; present or not per decode path',
  },
  {
    match: 'exact',
    name: 'addressingMode',
    reason: 'whether the group addresses by LID or phone; not a change of the item',
  },
  {
    match: 'exact',
    name: 'messageContextInfo',
    reason: 'device-list and secret metadata that differs per receiving device',
  },
  {
    match: 'exact',
    name: 'size',
    reason: 'snapshot participant count: derived from participants, and reported without them in some fetches',
  },
  {
    match: 'suffix',
    name: 'Pn',
    valueKind: 'string',
    reason:
      'phone alias of a LID in the same item (ownerPn, authorPn …); sent or omitted by the server per addressing mode',
    isNewSinceFirstCollector: true,
  },
  {
    match: 'exact',
    name: 'phoneNumber',
    reason: 'phone alias of a LID participant id; sent or omitted per addressing mode',
    isNewSinceFirstCollector: true,
  },
  {
    match: 'suffix',
    name: 'Username',
    reason: 'username alias of a JID in the item; a profile change, not a change of this item',
  },
  { match: 'exact', name: 'notify', reason: 'display name of the contact/group as seen by this device' },
  { match: 'exact', name: 'userReceipt', reason: 'per-reader receipts accumulate on a stored message after the fact' },
  {
    match: 'exact',
    name: 'latencyMs',
    reason: 'call offer delivery latency measured by this device, differs per re-delivery',
  },
  { match: 'exact', name: 'mediaData', reason: 'local media cache state (path on this device)' },
];

type VolatileFieldTest = (key: string, value: JsonValue) => boolean;

function volatileFieldTest(rules: readonly VolatileFieldRule[]): VolatileFieldTest {
  const exactRules = new Map(rules.filter((rule) => rule.match === 'exact').map((rule) => [rule.name, rule]));
  const suffixRules = rules.filter((rule) => rule.match === 'suffix');
  return (key, value) => {
    const exact = exactRules.get(key);
    if (exact) return exact.valueKind === undefined || typeof value === exact.valueKind;
    for (const rule of suffixRules) {
      if (key.length > rule.name.length && key.endsWith(rule.name))
        return rule.valueKind === undefined || typeof value === rule.valueKind;
    }
    return false;
  };
}

/**
 * True when `key` (with its normalized `value`) is a volatile field and must be left out of the hash.
 * Source: architecture.md §4 and `VOLATILE_FIELDS` above.
 */
export const isVolatileField: VolatileFieldTest = volatileFieldTest(VOLATILE_FIELDS);

/**
 * {@link isVolatileField} as the first collector had it: without the rules marked
 * `isNewSinceFirstCollector` (`*Pn`, `phoneNumber`), which it hashed.
 */
export const isFirstCollectorVolatileField: VolatileFieldTest = volatileFieldTest(
  VOLATILE_FIELDS.filter((rule) => rule.isNewSinceFirstCollector !== true)
);
