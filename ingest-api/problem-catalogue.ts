import { INGEST_ERROR_CODES, type IngestErrorCode } from './errors.js';
import { problemTitle, problemType } from './problem-details.js';

/** One problem type's documentation: when it is answered and, where it helps, what a client does next. */
export interface ProblemEntry {
  /** When the API answers with this code (the "when" column of ingest-api/README.md). */
  when: string;
  /** What a client does about it. */
  advice?: string;
  /** Where the rule comes from, for a reader outside the repository. */
  source?: string;
}

const IDEMPOTENCY_DRAFT = 'draft-ietf-httpapi-idempotency-key-header (Idempotency-Key), ADR 0030';

/**
 * The problem types of the API (RFC 9457 §3.1.1, ADR 0030): one entry per code of {@link INGEST_ERROR_CODES},
 * which the type checker enforces. `GET /api/v1/problems/<code>` serves each as a page and
 * `test/unit/ingest-api/problem-catalogue.test.ts` keeps the catalogue of ingest-api/README.md equal to it.
 */
export const PROBLEM_CATALOGUE: Readonly<Record<IngestErrorCode, ProblemEntry>> = {
  WA_ERR_MISSING_SIGNATURE: {
    when: '`X-Signature` or `X-Event-Id` missing or empty (checked before the body is read)',
  },
  WA_ERR_BAD_SIGNATURE: {
    when: 'signature does not match the raw body for any configured secret (internal endpoints: or not this method, path and timestamp)',
  },
  WA_ERR_METRICS_UNAUTHORIZED: {
    when: '`GET /metrics` without `Authorization: Bearer <METRICS_TOKEN>` when that token is set (ADR 0014)',
  },
  WA_ERR_STALE_SIGNATURE: {
    when: 'internal endpoints: authentic, but `X-Timestamp` is further from now than `INTERNAL_SIGNATURE_TOLERANCE_MS`',
  },
  WA_ERR_INVALID_EVENT_ID: {
    when: '`X-Event-Id` is not a UUID',
  },
  WA_ERR_BODY_TOO_LARGE: {
    when: 'body over `INGEST_BODY_LIMIT_BYTES` (default 4 MiB)',
  },
  WA_ERR_UNSUPPORTED_MEDIA_TYPE: {
    when: '`Content-Type` is not `application/json`',
  },
  WA_ERR_INVALID_JSON: {
    when: 'body is not JSON',
  },
  WA_ERR_BAD_REQUEST: {
    when: 'malformed HTTP request (framework-level, e.g. a garbage request line or `Content-Length`)',
  },
  WA_ERR_REQUEST_TIMEOUT: {
    when: 'headers not complete within `INGEST_HEADERS_TIMEOUT_MS` (10 s), or the body within `INGEST_REQUEST_TIMEOUT_MS` (30 s)',
  },
  WA_ERR_HEADERS_TOO_LARGE: {
    when: "request headers over Node's `maxHeaderSize` (16 KiB)",
  },
  WA_ERR_INVALID_BODY: {
    when: '`type` / `payload` / `chat_jid` invalid, body not an object, or nesting deeper than 512',
  },
  WA_ERR_UNSTORABLE_PAYLOAD: {
    when: 'PostgreSQL refused the content (SQLSTATE class 22/54) despite sanitizing',
  },
  WA_ERR_NOT_FOUND: {
    when: 'no such route',
  },
  WA_ERR_DATABASE_UNAVAILABLE: {
    when: 'PostgreSQL unreachable; `Retry-After: 5`',
  },
  WA_ERR_DATABASE_BUSY: {
    when: 'all `DATABASE_POOL_MAX` connections stayed busy for 5 s; `Retry-After: 5`',
  },
  WA_ERR_TEMPORAL_UNAVAILABLE: {
    when: '`GET /readyz` only: the send starter cannot reach Temporal; the message names the address and the likely cause (ADR 0028)',
  },
  WA_ERR_INTERNAL: {
    when: 'anything else',
  },
  WA_ERR_BAD_API_KEY: {
    when: 'send API: `x-api-key` missing, unknown or revoked',
  },
  WA_ERR_MISSING_IDEMPOTENCY_KEY: {
    when: 'send API: no `Idempotency-Key` header',
    advice:
      'Send exactly one `Idempotency-Key` header: a Structured Field string (`"abc"`) or the bare key (`abc`), 1–255 characters. Make one new key (a UUID) per message and send the same key again only to retry that message. Nothing was stored.',
    source: IDEMPOTENCY_DRAFT,
  },
  WA_ERR_INVALID_IDEMPOTENCY_KEY: {
    when: 'send API: an `Idempotency-Key` that is repeated or a list, empty, over 255 characters, or neither `"abc"` nor `abc`; the detail says which',
    advice:
      'Send exactly one `Idempotency-Key` header: a Structured Field string (`"abc"`) or the bare key (`abc`), 1–255 characters. Make one new key (a UUID) per message and send the same key again only to retry that message. Nothing was stored.',
    source: IDEMPOTENCY_DRAFT,
  },
  WA_ERR_IDEMPOTENCY_MISMATCH: {
    when: 'send API: the `Idempotency-Key` was used with another body',
    advice:
      "A key names the first request made with it. A retry must repeat that request's body exactly; another message needs a new key. Nothing was sent for this request.",
    source: IDEMPOTENCY_DRAFT,
  },
  WA_ERR_UNKNOWN_CATEGORY: {
    when: 'send API: `category` is not `otp`, `transactional` or `marketing`',
  },
  WA_ERR_TEXT_TOO_LONG: {
    when: 'send API: `text` longer than `SEND_TEXT_MAX_CHARS` characters',
  },
  WA_ERR_DELIVER_BY_PASSED: {
    when: 'send API: `deliver_by` is not in the future',
  },
  WA_ERR_DELIVER_BY_TOO_FAR: {
    when: 'send API: `deliver_by` is more than 30 days ahead (ADR 0017)',
  },
  WA_ERR_METADATA_TOO_LARGE: {
    when: 'send API: `metadata` is more than 16 KiB (16,384 bytes) of JSON in UTF-8 (ADR 0017)',
  },
  WA_ERR_INVALID_RECIPIENT: {
    when: 'send API: `to` is neither a group JID nor a phone number',
  },
  WA_ERR_RECIPIENT_NOT_ALLOWED: {
    when: 'send API: a group the account is not in, or a number that has not opted in',
  },
  WA_ERR_MESSAGE_NOT_FOUND: {
    when: 'send API: no message with this id for this key',
  },
  WA_ERR_UNKNOWN_FIELD: {
    when: 'send API: a top-level body field other than `to, text, category, deliver_by, metadata`',
  },
  WA_ERR_UNREPRESENTABLE_JSON: {
    when: 'send API: nesting over 32 levels, a non-finite number (`1e400`), or a `__proto__`/`constructor`/`prototype` key (ADR 0014)',
  },
  WA_ERR_QUOTA_EXCEEDED: {
    when: "send API: the key's daily or monthly quota is used up; `Retry-After`, `RateLimit-Policy`, `RateLimit` (ADR 0015)",
  },
  WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT: {
    when: 'send API: a request with this `Idempotency-Key` is still being accepted, by any API process of the lake (ADR 0030)',
    advice:
      "The first request with this key is still being accepted, by this or another API process. Retry after a moment with the same key and body: you then get the first request's answer (202 and the same body, with `Idempotent-Replayed: true`).",
    source: IDEMPOTENCY_DRAFT,
  },
  WA_ERR_IDEMPOTENCY_KEY_EXPIRED: {
    when: 'send API: the `Idempotency-Key` was first used more than 24 h ago; nothing is sent, use a new key',
    advice:
      'Keys are remembered 24 h from their first request. A late retry of an old request is refused rather than sent twice; send a new message with a new key if it is still wanted.',
    source: IDEMPOTENCY_DRAFT,
  },
  WA_ERR_NOT_A_TEST_RECIPIENT: {
    when: "send API: a test key's recipient is not a test recipient of the account (`wa-lake test-recipients add`)",
  },
  WA_ERR_ACCOUNT_NOT_APPROVED: {
    when: 'send API: a live key of an account not approved for live sending (`wa-lake accounts approve`)',
  },
  WA_ERR_TEMPLATE_NOT_FOUND: {
    when: "send API: no template with this name or id for the key's account, or every version archived",
  },
  WA_ERR_TEMPLATE_NOT_APPROVED: {
    when: 'send API: a live key named a template that has no approved version',
  },
  WA_ERR_TEMPLATE_VARIABLE_MISSING: {
    when: 'send API: a variable the template version declares is not in `variables` (`fields` names it)',
  },
  WA_ERR_TEMPLATE_VARIABLE_UNKNOWN: {
    when: 'send API: `variables` has a name the template version does not declare',
  },
  WA_ERR_TOO_MANY_AUTH_FAILURES: {
    when: 'this client address failed `INGEST_AUTH_FAILURES_MAX` signature (or API-key) checks in the window; `Retry-After`',
  },
  WA_ERR_SEND_RATE_LIMITED: {
    when: 'send API: this key made `SEND_API_KEY_REQUESTS_MAX` requests in the window; `Retry-After`',
  },
};

/** Whether `code` names a problem type of {@link PROBLEM_CATALOGUE}. */
export function isProblemCode(code: string): code is IngestErrorCode {
  return Object.hasOwn(PROBLEM_CATALOGUE, code);
}

/**
 * The human-readable page of one problem type (`text/markdown`, RFC 7763), served at its type URI: title, status,
 * when it is answered, what to do, and the members every problem body carries.
 */
export function renderProblemPage(code: IngestErrorCode): string {
  const entry = PROBLEM_CATALOGUE[code];
  return [
    `# ${problemTitle(code)}`,
    '',
    `- Type: \`${problemType(code)}\``,
    `- Code: \`${code}\``,
    `- Status: ${INGEST_ERROR_CODES[code]}`,
    ...(entry.source ? [`- Source: ${entry.source}`] : []),
    '',
    `When: ${entry.when.replace(/^send API: /, '')}.`,
    ...(entry.advice ? ['', entry.advice] : []),
    '',
    'The body is `application/problem+json` (RFC 9457): `type` (this page), `title`, `status`, `detail` (this',
    'occurrence), and the extension members `code`, `error` (the same sentence as `detail`) and, for an invalid',
    'field, `fields: [{field, message}]`.',
    '',
  ].join('\n');
}

/** The index page of every problem type (`text/markdown`): one line per code with its status and link. */
export function renderProblemIndex(): string {
  const lines = (Object.keys(PROBLEM_CATALOGUE) as IngestErrorCode[]).map(
    (code) => `- [\`${code}\`](${problemType(code)}) (${INGEST_ERROR_CODES[code]}): ${PROBLEM_CATALOGUE[code].when}`
  );
  return ['# Problem types of the wa-lake API', '', ...lines, ''].join('\n');
}
