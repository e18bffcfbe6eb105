import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SEND_CATEGORIES, type SendCategory } from '../../workflows/send-contracts.js';
import { IngestHttpError } from '../errors.js';
import { stringifyJsonExactly } from '../../common/exact-json-text.js';

/**
 * Farthest `deliver_by` accepted, from the time of the request (ADR 0017): 30 days. A `sendMessage` workflow
 * waits for a slot until its deadline, so `9999-12-31` would start a workflow meant to run 8,000 years.
 */
export const DELIVER_BY_MAX_HORIZON_MS = 30 * 24 * 60 * 60_000;

/** Largest `metadata` accepted, in bytes of its JSON in UTF-8 (ADR 0017): 16 KiB; it is stored on every row. */
export const SEND_METADATA_MAX_BYTES = 16 * 1024;

/** A send request after shape validation (architecture.md §12). */
export interface SendRequest {
  to: string;
  /** The free text; null when the message comes from a template (rendered at accept, ADR 0015). */
  text: string | null;
  /** The template (id or friendly name) and its variables; absent for free text (keeps its request hash). */
  template?: { ref: string; variables: Record<string, string | number> };
  category: SendCategory;
  /** Epoch ms, or null. */
  deliverByMs: number | null;
  metadata: Record<string, unknown> | null;
}

/**
 * The body schema `POST /api/v1/messages` validates with, and the one its OpenAPI document is generated from
 * (ADR 0015). Strict (ADR 0009): a misspelt `deliverBy` must not silently drop the caller's
 * deadline.
 */
export const sendRequestBodySchema = z.strictObject({
  to: z.string().min(1).max(255),
  text: z
    .string()
    .min(1)
    .optional()
    .describe('the message; at most SEND_TEXT_MAX_CHARS characters, 4,096 by default (422 WA_ERR_TEXT_TOO_LONG)'),
  template: z.string().min(1).max(100).optional(),
  variables: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  category: z
    .string({
      error: (issue) => (issue.input === undefined ? 'category is required' : 'category must be a string'),
    })
    .describe(`one of ${SEND_CATEGORIES.join(', ')} (422 WA_ERR_UNKNOWN_CATEGORY otherwise)`),
  deliver_by: z.iso
    .datetime({
      offset: true,
      error: 'deliver_by needs a date, a time and an offset, such as 2025-06-01T12:00:00Z or 2025-06-01T09:00:00-03:00',
    })
    .optional()
    .nullable()
    .describe('deadline; in the future and at most 30 days ahead (422 WA_ERR_DELIVER_BY_TOO_FAR)'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .nullable()
    .describe('kept as sent; at most 16 KiB (16,384 bytes) of JSON in UTF-8 (422 WA_ERR_METADATA_TOO_LARGE)'),
});

/**
 * Validates the JSON body of `POST /api/v1/messages`: exactly one of `text` or `template` (+ `variables`,
 * ADR 0015; 422 `WA_ERR_INVALID_BODY` otherwise); top-level fields other than `to`, `text`, `template`, `variables`, `category`,
 * `deliver_by`, `metadata` (422 `WA_ERR_UNKNOWN_FIELD` naming them; `metadata` stays free-form), shape
 * (422 `WA_ERR_INVALID_BODY` with fields),
 * category (422 `WA_ERR_UNKNOWN_CATEGORY`), text length in characters (422 `WA_ERR_TEXT_TOO_LONG`), `metadata` over
 * {@link SEND_METADATA_MAX_BYTES} (422 `WA_ERR_METADATA_TOO_LARGE`).
 * `deliver_by` ({@link checkDeliverBy}) and the recipient are checked later: an idempotent replay of an accepted
 * request must still answer 200 after its deadline.
 *
 * @throws IngestHttpError as above.
 */
export function parseSendRequest(body: unknown, textMaxChars: number): SendRequest {
  const parsed = sendRequestBodySchema.safeParse(body);
  if (!parsed.success) {
    const unknownKeys = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' && issue.path.length === 0 ? issue.keys : []
    );
    if (unknownKeys.length > 0) {
      throw new IngestHttpError(
        'WA_ERR_UNKNOWN_FIELD',
        `unknown field(s): ${unknownKeys.join(', ')}; allowed: to, text, template, variables, category, deliver_by, metadata`,
        unknownKeys.map((field) => ({ field, message: 'unknown field' }))
      );
    }
    const fields = parsed.error.issues.map((issue) => ({
      field: issue.path.join('.') || '(root)',
      message: issue.message,
    }));
    throw new IngestHttpError('WA_ERR_INVALID_BODY', 'body has invalid fields', fields);
  }
  const { to, text, template, variables, category, deliver_by: deliverBy, metadata } = parsed.data;
  if ((text === undefined) === (template === undefined) || (variables !== undefined && template === undefined)) {
    throw new IngestHttpError('WA_ERR_INVALID_BODY', 'body has invalid fields', [
      { field: text === undefined ? 'text' : 'template', message: 'give either text or template (with variables)' },
    ]);
  }
  if (!(SEND_CATEGORIES as readonly string[]).includes(category)) {
    throw new IngestHttpError('WA_ERR_UNKNOWN_CATEGORY', `category must be one of ${SEND_CATEGORIES.join(', ')}`);
  }
  if (text !== undefined) checkTextLength(text, textMaxChars);
  if (metadata) checkMetadataSize(metadata);
  return {
    to,
    text: text ?? null,
    ...(template === undefined ? {} : { template: { ref: template, variables: variables ?? {} } }),
    category: category as SendCategory,
    deliverByMs: deliverBy ? Date.parse(deliverBy) : null,
    metadata: metadata ?? null,
  };
}

/**
 * Checks a message text (given, or rendered from a template) against `SEND_TEXT_MAX_CHARS`.
 *
 * @throws IngestHttpError 422 `WA_ERR_TEXT_TOO_LONG`.
 */
export function checkTextLength(text: string, textMaxChars: number): void {
  if ([...text].length > textMaxChars) {
    throw new IngestHttpError('WA_ERR_TEXT_TOO_LONG', `text is longer than ${textMaxChars} characters`);
  }
}

/**
 * Checks `metadata` against {@link SEND_METADATA_MAX_BYTES}, counted on its JSON in UTF-8.
 *
 * @throws IngestHttpError 422 `WA_ERR_METADATA_TOO_LARGE` naming both sizes.
 */
export function checkMetadataSize(metadata: Record<string, unknown>): void {
  const bytes = Buffer.byteLength(stringifyJsonExactly(metadata), 'utf8');
  if (bytes > SEND_METADATA_MAX_BYTES) {
    throw new IngestHttpError(
      'WA_ERR_METADATA_TOO_LARGE',
      `metadata is ${bytes} bytes of JSON; at most ${SEND_METADATA_MAX_BYTES} (16 KiB) are accepted`,
      [{ field: 'metadata', message: `at most ${SEND_METADATA_MAX_BYTES} bytes of JSON` }]
    );
  }
}

/**
 * What is wrong with a `deliver_by` at `nowMs`, or null: not in the future (422 `WA_ERR_DELIVER_BY_PASSED`), or
 * more than {@link DELIVER_BY_MAX_HORIZON_MS} ahead (422 `WA_ERR_DELIVER_BY_TOO_FAR`). Returned, not thrown: a
 * replay of an accepted request answers 200 whatever its deadline has become.
 */
export function checkDeliverBy(deliverByMs: number | null, nowMs: number): IngestHttpError | null {
  if (deliverByMs === null) return null;
  if (deliverByMs <= nowMs) return new IngestHttpError('WA_ERR_DELIVER_BY_PASSED', 'deliver_by must be in the future');
  if (deliverByMs - nowMs > DELIVER_BY_MAX_HORIZON_MS) {
    return new IngestHttpError(
      'WA_ERR_DELIVER_BY_TOO_FAR',
      'deliver_by must be at most 30 days ahead; send without deliver_by for no deadline'
    );
  }
  return null;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, canonical(inner)]));
  }
  return value;
}

/**
 * Hash that decides "same body" for an `Idempotency-Key` (architecture.md §12): lower-case hex SHA-256 of the
 * canonical JSON (sorted keys) of the validated request, so key order and whitespace do not matter.
 */
export function hashSendRequest(request: SendRequest): string {
  return createHash('sha256')
    .update(stringifyJsonExactly(canonical(request)))
    .digest('hex');
}
