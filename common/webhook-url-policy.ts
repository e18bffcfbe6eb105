import { lookup as dnsLookup } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { envBoolean } from './config-schema.js';

/**
 * What a caller-supplied webhook URL may point at (architecture.md §12, ADR 0014).
 * Production: `https` only, public unicast addresses only. Development (`wa-lake dev`, the demos, the
 * tests) sets both switches explicitly.
 */
export interface WebhookUrlPolicy {
  /** `SEND_WEBHOOK_ALLOW_HTTP`: plain `http:` URLs are accepted too. */
  allowHttp: boolean;
  /** `SEND_WEBHOOK_ALLOW_PRIVATE`: loopback, private, link-local, metadata… addresses are accepted too. */
  allowPrivate: boolean;
}

/** The strict policy: https to public unicast addresses only. */
export const STRICT_WEBHOOK_URL_POLICY: WebhookUrlPolicy = Object.freeze({ allowHttp: false, allowPrivate: false });

/** The env keys of {@link WebhookUrlPolicy}, to merge into a process's config schema. */
export const webhookUrlPolicyEnvShape = {
  SEND_WEBHOOK_ALLOW_HTTP: envBoolean(false),
  SEND_WEBHOOK_ALLOW_PRIVATE: envBoolean(false),
};

/** Parses {@link webhookUrlPolicyEnvShape} from an environment. @throws ZodError on a value other than true/false. */
export function webhookUrlPolicyFromEnv(env: Readonly<Record<string, string | undefined>>): WebhookUrlPolicy {
  const parsed = z.object(webhookUrlPolicyEnvShape).parse(env);
  return { allowHttp: parsed.SEND_WEBHOOK_ALLOW_HTTP, allowPrivate: parsed.SEND_WEBHOOK_ALLOW_PRIVATE };
}

/**
 * Host names refused before any DNS look-up: RFC 6761 `localhost` and the cloud metadata services' names
 * (they resolve to link-local addresses, which the address check refuses anyway once resolved).
 */
const FORBIDDEN_HOST_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'instance-data']);

/** How an operator allows private addresses, appended to every refusal of one. */
export const PRIVATE_HINT = 'private addresses need SEND_WEBHOOK_ALLOW_PRIVATE=true';

/** Why an address is refused, or null when it is a public unicast address. */
export function forbiddenAddressRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // `process` turns an IPv4-mapped IPv6 address (::ffff:127.0.0.1) into the IPv4 address it carries.
  const range = ipaddr.process(address).range();
  // Only plain unicast passes: 6to4, Teredo and NAT64 prefixes embed an IPv4 address that could be private.
  return range === 'unicast' ? null : range;
}

/** A URL's host as an address (brackets of IPv6 removed), or null when it is a DNS name. */
function literalAddress(url: URL): string | null {
  if (url.hostname.startsWith('[')) return url.hostname.slice(1, -1);
  return ipaddr.IPv4.isValidFourPartDecimal(url.hostname) ? url.hostname : null;
}

/** Result of {@link checkWebhookUrlSyntax}: the normalized URL, or why it is refused. */
export type WebhookUrlVerdict = { ok: true; url: URL; hostAddress: string | null } | { ok: false; reason: string };

/**
 * Checks what can be checked without DNS: a parseable absolute URL, scheme `https` (or `http` when
 * allowed), no user name or password, and, unless `allowPrivate`, a host that is neither a forbidden name
 * nor a literal address outside public unicast. The WHATWG parser has already turned decimal
 * (`2130706433`), hex (`0x7f.1`), octal and short (`127.1`) IPv4 forms into dotted decimal, and IPv6 into
 * its compressed form, so one check covers every notation.
 *
 * @returns `{ok: true, url, hostAddress}` (hostAddress null for a DNS name) or `{ok: false, reason}`.
 */
export function checkWebhookUrlSyntax(value: string, policy: WebhookUrlPolicy): WebhookUrlVerdict {
  if (!URL.canParse(value)) return { ok: false, reason: 'is not an absolute URL' };
  const url = new URL(value);
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    const allowed = policy.allowHttp ? 'https or http' : 'https (http needs SEND_WEBHOOK_ALLOW_HTTP=true)';
    return { ok: false, reason: `uses ${url.protocol.slice(0, -1)}; only ${allowed} is accepted` };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'carries a user name or password' };
  const hostAddress = literalAddress(url);
  if (policy.allowPrivate) return { ok: true, url, hostAddress };
  const name = url.hostname.replace(/\.$/, '');
  if (hostAddress === null && (FORBIDDEN_HOST_NAMES.has(name) || name.endsWith('.localhost')))
    return { ok: false, reason: `names a local or metadata host (${name})` };
  const range = hostAddress === null ? null : forbiddenAddressRange(hostAddress);
  if (range !== null) return { ok: false, reason: `points at ${hostAddress} (${range}); ${PRIVATE_HINT}` };
  return { ok: true, url, hostAddress };
}

/** One address a DNS look-up returned (the shape of `dns.lookup(…, {all: true})`). */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address (injectable in tests); rejects when it does not resolve. */
export type ResolveAll = (hostname: string) => Promise<ResolvedAddress[]>;

/** `dns.lookup(host, {all: true})` as a promise: every address, in the resolver's order. */
export const resolveAllWithDns: ResolveAll = (hostname) =>
  new Promise<ResolvedAddress[]>((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

/** Result of {@link checkWebhookUrl}: accepted (with a note when the name does not resolve yet) or refused. */
export type WebhookUrlCheck = { ok: true; url: string; note: string | null } | { ok: false; reason: string };

/**
 * The check made when a key's webhook URL is saved (`api-keys create --webhook-url`): the syntax check,
 * then, for a DNS name and unless `allowPrivate`, every address the name resolves to must be public
 * unicast. A name that does not resolve now is accepted with a note: every connection checks it again
 * (`createGuardedLookup`), which is the check that counts against DNS rebinding.
 */
export async function checkWebhookUrl(
  value: string,
  policy: WebhookUrlPolicy,
  resolveAll: ResolveAll
): Promise<WebhookUrlCheck> {
  const verdict = checkWebhookUrlSyntax(value, policy);
  if (!verdict.ok) return verdict;
  const url = verdict.url.toString();
  if (policy.allowPrivate || verdict.hostAddress !== null) return { ok: true, url, note: null };
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveAll(verdict.url.hostname);
  } catch {
    return { ok: true, url, note: `${verdict.url.hostname} does not resolve now; every delivery checks it again` };
  }
  for (const { address } of addresses) {
    const range = forbiddenAddressRange(address);
    if (range !== null) return { ok: false, reason: `resolves to ${address} (${range}); ${PRIVATE_HINT}` };
  }
  return { ok: true, url, note: null };
}
