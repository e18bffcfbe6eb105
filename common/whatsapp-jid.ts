/**
 * The one home of WhatsApp identifier (JID) rules (architecture.md §4, ADR 0021): which server a JID is on
 * (group, LID, phone, newsletter, broadcast), its canonical form, and what a well-formed group or phone JID
 * typed by a person looks like. Every other file asks this module; lint rejects an inline `@g.us`, `@lid` or
 * `@s.whatsapp.net` check anywhere else (eslint-import-rules.js, `jidRuleConfigs`).
 *
 * The server predicates, {@link jidDecode}, {@link jidEncode} and {@link jidNormalizedUser} restate Baileys
 * 7.0.0-rc14's `src/WABinary/jid-utils.ts` exactly (test/unit/common/whatsapp-jid.test.ts compares them with
 * Baileys' own), so event keys and the edge filter keep Baileys' rules without importing Baileys here.
 * Pure and sandbox-safe: no imports.
 */

/** The servers of the JIDs wa-lake meets. */
export const JID_SERVERS = {
  phone: 's.whatsapp.net',
  legacyPhone: 'c.us',
  lid: 'lid',
  /** A phone number's account hosted by a business provider (Baileys' `isHostedPnUser`). */
  hostedPhone: 'hosted',
  /** A LID hosted by a business provider (Baileys' `isHostedLidUser`). */
  hostedLid: 'hosted.lid',
  group: 'g.us',
  newsletter: 'newsletter',
  broadcast: 'broadcast',
} as const;

/** The status broadcast, the one `@broadcast` JID that is every contact's status feed. */
export const STATUS_BROADCAST_JID = 'status@broadcast';

/** A JID split as `user[_agent][:device]@server`, as Baileys' `jidDecode` splits it. */
export interface DecodedJid {
  user: string;
  server: string;
  /** The device of a multi-device JID (`…:3@lid` → 3); undefined when the JID names the account. */
  device: number | undefined;
  /** The agent after `_` in the user part, undefined when there is none. */
  agent: string | undefined;
}

/** Splits a JID at its first `@`; undefined when there is no `@` (Baileys' `jidDecode`, without `domainType`). */
export function jidDecode(jid: string | null | undefined): DecodedJid | undefined {
  const at = typeof jid === 'string' ? jid.indexOf('@') : -1;
  if (jid === null || jid === undefined || at < 0) return undefined;
  const [userAgent = '', device] = jid.slice(0, at).split(':');
  const [user = '', agent] = userAgent.split('_');
  return { user, server: jid.slice(at + 1), device: device ? Number(device) : undefined, agent };
}

/** Joins the parts of a JID; a device or agent that is absent or 0 is left out (Baileys' `jidEncode`). */
export function jidEncode(user: string | number | null, server: string, device?: number, agent?: number): string {
  return `${user || ''}${agent ? `_${agent}` : ''}${device ? `:${device}` : ''}@${server}`;
}

/**
 * The account a JID names, without device or agent, with the legacy `c.us` server written `s.whatsapp.net`
 * (`20000000000993:3@lid` → `20000000000993@lid`); `''` for a string without `@` (Baileys' `jidNormalizedUser`).
 */
export function jidNormalizedUser(jid: string | null | undefined): string {
  const decoded = jidDecode(jid);
  if (!decoded) return '';
  const server = decoded.server === JID_SERVERS.legacyPhone ? JID_SERVERS.phone : decoded.server;
  return jidEncode(decoded.user, server);
}

/**
 * The one participant key of a person JID (ADR 0019): the same person writes from the phone
 * (`20000000000993@lid`) and from WhatsApp Web or Desktop (`20000000000993:3@lid`, device 3), so a LID or phone JID
 * loses its device and agent ({@link jidNormalizedUser}, `c.us` written `s.whatsapp.net`). Every participant key the
 * projections, the read model and the account's JIDs make goes through here. Anything else (a group JID, a bare id,
 * text) comes back unchanged, as does a JID already canonical, at the cost of two `indexOf` on the hot path.
 */
export function canonicalParticipantKey(jid: string): string {
  if (jid.indexOf(':') === -1 && jid.indexOf('_') === -1 && !jid.endsWith(`@${JID_SERVERS.legacyPhone}`)) return jid;
  const isPerson = isLidUser(jid) || isPnUser(jid) || jid.endsWith(`@${JID_SERVERS.legacyPhone}`);
  return isPerson ? jidNormalizedUser(jid) : jid;
}

/** True when the JID is on the group server (`…@g.us`), whatever its user part (Baileys' `isJidGroup`). */
export function isJidGroup(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.group}`) ?? false;
}

/** True for a LID, with or without a device (`…@lid`, Baileys' `isLidUser`). */
export function isLidUser(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.lid}`) ?? false;
}

/** True for a phone-number JID, with or without a device (`…@s.whatsapp.net`, Baileys' `isPnUser`). */
export function isPnUser(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.phone}`) ?? false;
}

/** True for a hosted phone-number JID (`…@hosted`, Baileys' `isHostedPnUser`). */
export function isHostedPnUser(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.hostedPhone}`) ?? false;
}

/** True for a hosted LID (`…@hosted.lid`, Baileys' `isHostedLidUser`). */
export function isHostedLidUser(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.hostedLid}`) ?? false;
}

/** True for a channel (`…@newsletter`, Baileys' `isJidNewsletter`). */
export function isJidNewsletter(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.newsletter}`) ?? false;
}

/** True for a broadcast list or the status feed (`…@broadcast`, Baileys' `isJidBroadcast`). */
export function isJidBroadcast(jid: string | null | undefined): boolean {
  return jid?.endsWith(`@${JID_SERVERS.broadcast}`) ?? false;
}

/** True for the status feed only (Baileys' `isJidStatusBroadcast`). */
export function isJidStatusBroadcast(jid: string | null | undefined): boolean {
  return jid === STATUS_BROADCAST_JID;
}

const WELL_FORMED_GROUP_JID = /^\d{5,40}(-\d{5,20})?@g\.us$/;
const WELL_FORMED_PHONE_JID = /^(\d{8,15})@s\.whatsapp\.net$/;
const PERSON_JID = /^(\d{5,20})(?::\d+)?@(s\.whatsapp\.net|lid|c\.us|hosted\.lid|hosted)$/;
// Every server a person's account appears on; `hosted.lid` before `hosted` and `lid`, so the longer one wins.
const PERSON_SERVERS = [
  JID_SERVERS.hostedLid,
  JID_SERVERS.hostedPhone,
  JID_SERVERS.phone,
  JID_SERVERS.lid,
  JID_SERVERS.legacyPhone,
] as const;
const PERSON_SERVER_SOURCE = PERSON_SERVERS.map((server) => server.replaceAll('.', '\\.')).join('|');

/**
 * True when text a person typed is a whole group JID: `<digits>@g.us`, or the older `<creator>-<time>@g.us`.
 * Stricter than {@link isJidGroup}, which only asks for the server: this is what `wa-lake report --group`
 * and the send API's `to` accept.
 */
export function isWellFormedGroupJid(text: string): boolean {
  return WELL_FORMED_GROUP_JID.test(text);
}

/** The phone JID of a number's digits (`5511987654321` → `5511987654321@s.whatsapp.net`). */
export function phoneJidOf(digits: string): string {
  return jidEncode(digits, JID_SERVERS.phone);
}

// A phone number as a person types it, spaces, dots, dashes and brackets taken out: the international prefix as `+`
// or `00`, then the number itself, which never starts with 0 (country codes do not).
const PHONE_NUMBER = /^(?:\+|00)?([1-9]\d{7,14})$/;

/**
 * The digits of a phone number as a person types it, country code first (`+55 11 98765-4321`, `0055 11 98765 4321`
 * → `5511987654321`): the international prefix `+` or `00` dropped, then 8–15 digits, the first not 0. Undefined for
 * anything else (a JID, a name, a national number such as `011 98765-4321`). The one rule every command and API
 * that accepts a phone number reads it by.
 */
export function phoneDigitsOfNumber(text: string): string | undefined {
  return PHONE_NUMBER.exec(text.trim().replace(/[\s().-]/g, ''))?.[1];
}

/** The digits of a whole phone JID without device (8–15 digits), or undefined when `text` is none. */
export function phoneDigitsOfJid(text: string): string | undefined {
  return WELL_FORMED_PHONE_JID.exec(text)?.[1];
}

/**
 * The canonical JID of a person's JID as a person types it (a LID or phone JID, 5–20 digits, optional device,
 * `c.us`, `hosted` and `hosted.lid` accepted): without device, on `lid` for a LID and `s.whatsapp.net` for a phone
 * number. Undefined for anything else (a group, a name, a bare number).
 */
export function canonicalPersonJid(text: string): string | undefined {
  const jid = PERSON_JID.exec(text);
  if (!jid?.[1]) return undefined;
  const isLid = jid[2] === JID_SERVERS.lid || jid[2] === JID_SERVERS.hostedLid;
  return jidEncode(jid[1], isLid ? JID_SERVERS.lid : JID_SERVERS.phone);
}

/**
 * The user part (digits) of a JID on any server, without agent or device (`5511…_1:99@hosted` → `5511…`): the one
 * key every form of a person's JID shares, which erasure tombstones hash (ADR 0027). Undefined when the user part
 * is not digits (a pseudonym, a group with a creator, text).
 */
export function jidUserDigits(jid: string): string | undefined {
  const user = jidDecode(jid)?.user;
  return user !== undefined && /^\d+$/.test(user) ? user : undefined;
}

/** The user parts (digits) of JIDs ({@link jidUserDigits}), each once. */
export function jidUsers(jids: readonly string[]): string[] {
  return [...new Set(jids.flatMap((jid) => jidUserDigits(jid) ?? []))];
}

/**
 * A regular expression source matching any person JID of these user parts on any server a person appears on
 * (`s.whatsapp.net`, `lid`, `c.us`, `hosted`, `hosted.lid`), with an optional agent and device suffix, in the
 * subset PostgreSQL's ARE and JavaScript share. Digits only, so nothing needs escaping.
 */
export function jidPatternSource(users: readonly string[]): string {
  return `(?<![0-9])(${users.join('|')})(_[0-9]+)?(:[0-9]+)?@(${PERSON_SERVER_SOURCE})`;
}

/**
 * A regular expression source matching a mention of these user parts as WhatsApp writes it in message text
 * (`@5511888880002`, or `@<lid digits>` in a LID-addressed group), in the subset PostgreSQL's ARE and JavaScript
 * share: `@`, the digits, then no further digit.
 */
export function mentionPatternSource(users: readonly string[]): string {
  return `@(${users.join('|')})(?![0-9])`;
}

/** The digits of every `@<digits>` mention (5–20 digits) in `text`, each as often as it appears. */
export function mentionedUsersIn(text: string): string[] {
  return [...text.matchAll(new RegExp(mentionPatternSource(['[0-9]{5,20}']), 'g'))].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]]
  );
}

/**
 * The user parts (digits) of every person JID anywhere in `text` (stored JSON), with any device suffix: how a rerun
 * of an incomplete erasure looks for the member's other identifiers among an outbox body's JIDs (ADR 0017).
 */
export function personJidUsersIn(text: string): string[] {
  return [...text.matchAll(new RegExp(jidPatternSource(['[0-9]{5,20}']), 'g'))].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]]
  );
}
