import { getPreviewFromContent } from 'link-preview-js';
import { createGuardedWebhookFetch } from '../../common/guarded-webhook-fetch.js';
import type { ResolveAll } from '../../common/webhook-url-policy.js';
import type { LinkPreview } from '../session/send-socket.js';

/** Options of {@link createLinkPreviewer}; durations in ms, sizes in bytes. */
export interface LinkPreviewerOptions {
  /** `SEND_LINK_PREVIEW_ALLOW_PRIVATE`: loopback, private and link-local hosts may be fetched too. */
  allowPrivate: boolean;
  /** The whole preview (every redirect and the body) within this; Baileys' own preview allows 3 s. */
  timeoutMs?: number;
  /** Only the first bytes of the page are read: the `<head>` with its `og:` tags comes first. */
  maxBytes?: number;
  /** DNS resolution of every address (tests map a name to 127.0.0.1). */
  resolveAll?: ResolveAll;
}

/**
 * The preview of the first `http(s)` link in a text, or null (no link, page unreachable, too slow, not HTML,
 * no title, a refused address). Never rejects: a preview is decoration and must not cost a send.
 */
export type LinkPreviewer = (text: string) => Promise<LinkPreview | null>;

export const DEFAULT_LINK_PREVIEW_TIMEOUT_MS = 3_000;
const DEFAULT_MAX_BYTES = 512 * 1024;
const MAX_REDIRECTS = 3;
/** A link as WhatsApp's clients find one: scheme, then up to whitespace or a quote or angle bracket. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/i;
/** Punctuation that ends a sentence rather than the link (`see https://example.org.`). */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/** The first `http(s)` link of `text` as written there, or null. */
export function findFirstLink(text: string): string | null {
  const found = URL_IN_TEXT.exec(text)?.[0].replace(TRAILING_PUNCTUATION, '');
  return found !== undefined && URL.canParse(found) ? found : null;
}

/** Reads at most `maxBytes` of a body as UTF-8 and cancels the rest. */
async function readHead(response: Response, maxBytes: number): Promise<string> {
  // Node's fetch yields bytes; the DOM typings of `Response` leave the chunk type open.
  const body = response.body as ReadableStream<Uint8Array> | null;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** Fetches `link`, following at most {@link MAX_REDIRECTS} redirects, each hop through the guarded fetch. */
async function fetchPage(guardedFetch: typeof fetch, link: string, signal: AbortSignal): Promise<Response | null> {
  let url = link;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    // `manual`: a redirect to a literal address never reaches the DNS guard, so each hop is checked again.
    const response = await guardedFetch(url, {
      redirect: 'manual',
      signal,
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response.ok ? response : null;
    await response.body?.cancel();
    url = new URL(location, url).toString();
  }
  return null;
}

async function previewOf(
  guardedFetch: typeof fetch,
  link: string,
  maxBytes: number,
  signal: AbortSignal
): Promise<LinkPreview | null> {
  const response = await fetchPage(guardedFetch, link, signal);
  const contentType = response?.headers.get('content-type') ?? '';
  if (!response || !HTML_TYPES.test(contentType)) return null;
  const html = await readHead(response, maxBytes);
  const parsed = await getPreviewFromContent({
    url: response.url || link,
    headers: { 'content-type': contentType },
    data: html,
  });
  if (!('title' in parsed) || !parsed.title) return null;
  return {
    'canonical-url': parsed.url,
    'matched-text': link,
    title: parsed.title,
    ...(parsed.description ? { description: parsed.description } : {}),
  };
}

/**
 * Builds the collector's link previewer (ADR 0015): the page behind the first link of a message is fetched
 * through the guarded fetch of caller-supplied URLs (public unicast addresses only, checked after DNS on
 * every hop, unless `allowPrivate`), read up to `maxBytes`, and its `og:`/`<title>` tags parsed with
 * link-preview-js. The link comes from an API client, so the fetch must not reach the collector's own
 * network: the preview would carry what it found there to a phone of the client's choosing.
 */
export function createLinkPreviewer(options: LinkPreviewerOptions): LinkPreviewer {
  const guardedFetch = createGuardedWebhookFetch(
    { allowHttp: true, allowPrivate: options.allowPrivate },
    options.resolveAll ? { resolveAll: options.resolveAll } : {}
  );
  const timeoutMs = options.timeoutMs ?? DEFAULT_LINK_PREVIEW_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return async (text) => {
    const link = findFirstLink(text);
    if (link === null) return null;
    const signal = AbortSignal.timeout(timeoutMs);
    const timedOut = new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null)));
    try {
      return await Promise.race([previewOf(guardedFetch, link, maxBytes, signal), timedOut]);
    } catch {
      return null;
    }
  };
}
