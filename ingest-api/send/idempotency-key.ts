import { parseItem } from 'structured-headers';

/** Longest `Idempotency-Key` accepted, in characters of the key itself (without quotes). */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/**
 * How long an `Idempotency-Key` is remembered for replay (ADR 0015): 24 h from the request
 * that first used it. A reuse after that is refused (422 `WA_ERR_IDEMPOTENCY_KEY_EXPIRED`) and sends nothing.
 */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

// The bare form: visible ASCII without the characters that would make it a list, a parameter or a string.
const BARE_KEY = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x7e]+$/;

/**
 * Reads the `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header §2, ADR 0015,
 * ADR 0015). Two forms name the same key:
 * - the draft's Structured Field String (RFC 9651 §3.3.3): `"abc"`, with `\"` and `\\` escapes; parameters
 *   are ignored;
 * - a bare value as most clients send it: `abc` (visible ASCII, none of `"`, `,`, `;`, no spaces).
 * So `Idempotency-Key: "abc"` and `Idempotency-Key: abc` are one key, `abc`.
 *
 * @param raw the header as Node gives it (several fields arrive joined with `, `, which neither form accepts).
 * @returns the key (1–255 characters), or null when the header is missing, empty, too long, repeated or
 *   neither form.
 */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const value = raw.trim();
  let key: string;
  if (value.startsWith('"')) {
    let item: ReturnType<typeof parseItem>;
    try {
      item = parseItem(value);
    } catch {
      return null;
    }
    if (typeof item[0] !== 'string') return null;
    key = item[0];
  } else {
    if (!BARE_KEY.test(value)) return null;
    key = value;
  }
  return key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX_CHARS ? key : null;
}

/** What {@link readIdempotencyKey} found: the key, or the error code and the sentence of a 400 answer. */
export type IdempotencyKeyReading =
  { key: string } | { code: 'WA_ERR_MISSING_IDEMPOTENCY_KEY' | 'WA_ERR_INVALID_IDEMPOTENCY_KEY'; detail: string };

/**
 * {@link parseIdempotencyKey} with the reason of a refusal: no header at all is `WA_ERR_MISSING_IDEMPOTENCY_KEY`;
 * a header that is there but unusable (empty, a list or two fields, longer than 255 characters, neither form) is
 * `WA_ERR_INVALID_IDEMPOTENCY_KEY`, whose detail says which (ADR 0015).
 */
export function readIdempotencyKey(raw: string | string[] | undefined): IdempotencyKeyReading {
  if (raw === undefined) {
    return {
      code: 'WA_ERR_MISSING_IDEMPOTENCY_KEY',
      detail: 'one Idempotency-Key header is required: a string of 1–255 characters, "abc" or abc',
    };
  }
  const key = parseIdempotencyKey(raw);
  if (key !== null) return { key };
  return { code: 'WA_ERR_INVALID_IDEMPOTENCY_KEY', detail: describeInvalidKey(raw) };
}

/** Why a present `Idempotency-Key` header is not a key, in one sentence. */
function describeInvalidKey(raw: string | string[]): string {
  const value = typeof raw === 'string' ? raw.trim() : '';
  const bare = value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
  if (typeof raw !== 'string' || /^"[^"]*"\s*,|^[^",]*,/.test(value)) {
    return 'the Idempotency-Key header holds a list or came twice; send it once, with one key';
  }
  if (bare === '') return 'the Idempotency-Key header is empty; send a key of 1–255 characters';
  if (bare.length > IDEMPOTENCY_KEY_MAX_CHARS) {
    return `the Idempotency-Key is ${String(bare.length)} characters long; at most ${String(IDEMPOTENCY_KEY_MAX_CHARS)} are accepted`;
  }
  return (
    'the Idempotency-Key is neither a quoted string ("abc") nor a bare key (abc: visible ASCII without spaces, ' +
    'quotes, commas or semicolons)'
  );
}
