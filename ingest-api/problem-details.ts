import type { IngestHttpError } from './errors.js';

/** Media type of every error answer of the public API (RFC 9457 §3). */
export const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

/** Where the public API lives: errors under it are problem details (ADR 0015). */
export const PUBLIC_API_PREFIX = '/api/v1/';

/** Where the problem types' pages are served (ADR 0030): `GET /api/v1/problems/<code>`. */
export const PROBLEMS_PATH = '/api/v1/problems';

/**
 * The problem type URI of an error code (RFC 9457 §3.1.1, ADR 0030): the relative reference
 * `/api/v1/problems/<code>`, which resolves against the request's URI to the page the API serves about it
 * (`problem-catalogue.ts`).
 */
export function problemType(code: string): string {
  return `${PROBLEMS_PATH}/${code}`;
}

/**
 * The `Link` field of a problem answer (RFC 8288): its type's page as `rel="describedby"`, the header the
 * Idempotency-Key draft's error scenarios show beside the problem body (ADR 0030).
 */
export function problemLink(code: string): string {
  return `<${problemType(code)}>; rel="describedby"; type="text/markdown"`;
}

/** The title of a problem type: WA_ERR_QUOTA_EXCEEDED → "Quota exceeded" (one title per type, RFC 9457 §3.1.3). */
export function problemTitle(code: string): string {
  const words = code
    .replace(/^WA_ERR_/, '')
    .toLowerCase()
    .replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The RFC 9457 problem details object of an error of the public API (ADR 0015, ADR 0030): `type`
 * (`/api/v1/problems/<code>`), `title` (from the code), `status`, `detail` (the message), and as
 * extension members the existing `code`, `error` (the message, as before) and `fields` when there are any.
 */
export function toProblemDetails(err: IngestHttpError): Record<string, unknown> {
  return {
    type: problemType(err.code),
    title: problemTitle(err.code),
    status: err.statusCode,
    detail: err.message,
    code: err.code,
    error: err.message,
    ...(err.fields ? { fields: err.fields } : {}),
  };
}
