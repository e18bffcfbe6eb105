import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent } from 'undici';
import {
  checkWebhookUrlSyntax,
  forbiddenAddressRange,
  PRIVATE_HINT,
  resolveAllWithDns,
  type ResolveAll,
  type WebhookUrlPolicy,
} from './webhook-url-policy.js';

/** errno-like `code` of the error behind a refused webhook connection (seen as the attempt's network error code). */
export const WEBHOOK_ADDRESS_FORBIDDEN_CODE = 'WA_ERR_WEBHOOK_ADDRESS_FORBIDDEN';

/** Thrown (as a fetch `cause`) when a webhook URL or one of the addresses its name resolves to is refused. */
export class WebhookAddressForbiddenError extends Error {
  override readonly name = 'WebhookAddressForbiddenError';
  readonly code = WEBHOOK_ADDRESS_FORBIDDEN_CODE;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family: number) => void;

/**
 * A `net.connect` `lookup` that resolves every address of the name and refuses the connection when any
 * of them is outside public unicast (ADR 0014): the check happens after DNS, on the addresses the
 * socket will really try (happy eyeballs asks with `all: true`), so a name that was public when the key
 * was saved and now resolves to 127.0.0.1 (DNS rebinding) is refused.
 */
export function createGuardedLookup(resolveAll: ResolveAll) {
  return function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    resolveAll(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const range = forbiddenAddressRange(address);
          if (range !== null) {
            const reason = `${hostname} resolves to ${address} (${range}); ${PRIVATE_HINT}`;
            callback(new WebhookAddressForbiddenError(reason), [], 0);
            return;
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : null;
        const usable = wanted === null ? addresses : addresses.filter((entry) => entry.family === wanted);
        const [first] = usable;
        if (first === undefined) {
          callback(Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }), [], 0);
        } else if (options.all === true) {
          callback(null, usable, 0);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, [], 0)
    );
  };
}

/** Options of {@link createGuardedWebhookFetch}. */
export interface GuardedWebhookFetchOptions {
  /** DNS resolution of every address (tests map a name to 127.0.0.1); default `dns.lookup` with `all`. */
  resolveAll?: ResolveAll;
}

/**
 * A `fetch` for callers' webhook URLs (status webhooks, ADR 0014): before connecting it applies
 * `checkWebhookUrlSyntax` (scheme, credentials, literal addresses), and its connections go through
 * {@link createGuardedLookup} unless `policy.allowPrivate`. A refusal rejects like a network error whose
 * `cause.code` is {@link WEBHOOK_ADDRESS_FORBIDDEN_CODE}; no byte is sent.
 */
export function createGuardedWebhookFetch(
  policy: WebhookUrlPolicy,
  options: GuardedWebhookFetchOptions = {}
): typeof fetch {
  const lookup = policy.allowPrivate ? undefined : createGuardedLookup(options.resolveAll ?? resolveAllWithDns);
  const dispatcher = new Agent({ connect: lookup ? { lookup } : {} });
  return async function guardedWebhookFetch(input, init) {
    const url = input instanceof Request ? input.url : input.toString();
    const verdict = checkWebhookUrlSyntax(url, policy);
    if (!verdict.ok) throw new TypeError('fetch failed', { cause: new WebhookAddressForbiddenError(verdict.reason) });
    return fetch(input, { ...init, dispatcher });
  };
}
