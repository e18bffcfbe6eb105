import type { IngestHttpError } from './errors.js';

/** Media type of every error answer of the public API (RFC 9457 §3). */
export const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

/** Where the public API lives: errors under it are problem details (ADR 0015). */
export const PUBLIC_API_PREFIX = '/api/v1/';

/** The problem type URI of an error code: `urn:wa-lake:problem:<code>` (catalogue in ingest-api/README.md). */
export function problemType(code: string): string {
  return `urn:wa-lake:problem:${code}`;
}

// WA_ERR_QUOTA_EXCEEDED → "Quota exceeded": one title per type, as RFC 9457 §3.1.3 asks.
function titleOf(code: string): string {
  const words = code
    .replace(/^WA_ERR_/, '')
    .toLowerCase()
    .replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The RFC 9457 problem details object of an error of the public API (ADR 0015): `type`
 * (`urn:wa-lake:problem:<code>`), `title` (from the code), `status`, `detail` (the message), and as
 * extension members the existing `code`, `error` (the message, as before) and `fields` when there are any.
 */
export function toProblemDetails(err: IngestHttpError): Record<string, unknown> {
  return {
    type: problemType(err.code),
    title: titleOf(err.code),
    status: err.statusCode,
    detail: err.message,
    code: err.code,
    error: err.message,
    ...(err.fields ? { fields: err.fields } : {}),
  };
}
