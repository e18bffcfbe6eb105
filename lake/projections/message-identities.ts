import type { JsonValue } from '../../common/json-value.js';
import { isLidUser, isPnUser } from '../../common/whatsapp-jid.js';
import { fromIds, toRole, type ParticipantRef } from './participant-ref.js';

const isPersonJid = (value: JsonValue | undefined): value is string =>
  typeof value === 'string' && (isLidUser(value) || isPnUser(value));

/** Suffixes Baileys 7 gives the alternate address of a JID field: `participantAlt`, `authorPn`, `ownerPn`, … */
const ALT_SUFFIXES = ['Alt', 'Pn'] as const;
/** JID fields of messages that name a person (the sender, a quoted author, a reactor, a caller). */
const PERSON_FIELDS: ReadonlySet<string> = new Set(['participant', 'remoteJid', 'author', 'from', 'sender']);
/** Fields with a JID and its alternate under another name. */
const RENAMED_PAIRS: ReadonlyArray<readonly [string, string]> = [['from', 'callerPn']];
/** Far enough for `message.<wrapper>.message.<content>.contextInfo.quotedMessage…`; bounds the work per message. */
const MAX_DEPTH = 8;

/**
 * Every person a message names, with the LID↔phone pairs it carries: in Baileys 7
 * a group message's `key.participant` is the sender's LID and `key.participantAlt` its phone JID — the
 * richest source of aliases. The walk reads, in any object of the item (keys, reaction keys,
 * `contextInfo`, quoted messages, call offers …):
 * - a person JID field with its alternate: `X` + `XAlt` / `XPn` (`participant`/`participantAlt`,
 *   `remoteJid`/`remoteJidAlt`, `author`/`authorPn`), `from` + `callerPn`;
 * - a participant object `{id, lid?, phoneNumber?}`;
 * - a lone person JID in `participant`, `remoteJid`, `author`, `from`, `sender` (no alias, a participant row).
 * Strings are never parsed, group JIDs (`@g.us`) never count; depth is bounded.
 *
 * @returns one reference per person named (LID-first, role null), deduplicated by (id, lid, phone).
 */
export function extractMessageIdentities(payload: JsonValue): ParticipantRef[] {
  const found = new Map<string, ParticipantRef>();
  const add = (first: string, second: string | undefined): void => {
    const ref = { ...fromIds(first, second, undefined, null), role: toRole(undefined) };
    // A pair of two LIDs or two phones is no alias: keep the first id alone.
    if (second !== undefined && (ref.lid === null || ref.phoneJid === null)) return add(first, undefined);
    found.set(`${ref.participantId}|${ref.lid ?? ''}|${ref.phoneJid ?? ''}`, ref);
  };
  walk(payload, 0, add);
  return [...found.values()];
}

function walk(value: JsonValue | undefined, depth: number, add: (first: string, second?: string) => void): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, depth + 1, add);
    return;
  }
  const object = value;
  for (const [key, field] of Object.entries(object)) {
    if (typeof field === 'object') {
      walk(field, depth + 1, add);
      continue;
    }
    if (!isPersonJid(field)) continue;
    const alternate = ALT_SUFFIXES.map((suffix) => object[key + suffix]).find(isPersonJid);
    if (alternate !== undefined) add(field, alternate);
    else if (PERSON_FIELDS.has(key)) add(field, undefined);
  }
  for (const [first, second] of RENAMED_PAIRS) {
    const [jid, alternate] = [object[first], object[second]];
    if (isPersonJid(jid) && isPersonJid(alternate)) add(jid, alternate);
  }
  const id = object['id'];
  if (isPersonJid(id)) {
    const alternate = [object['lid'], object['phoneNumber']].find(isPersonJid);
    if (alternate !== undefined) add(id, alternate);
  }
}

/** The LID↔phone pairs among references (both ids present). */
export function aliasPairs(refs: readonly ParticipantRef[]): Array<{ lid: string; phoneJid: string }> {
  return refs.flatMap((ref) => (ref.lid && ref.phoneJid ? [{ lid: ref.lid, phoneJid: ref.phoneJid }] : []));
}
