import { z } from 'zod';
import { SEND_CATEGORIES, SEND_STATES } from '../../workflows/send-contracts.js';
import { INGEST_ERROR_CODES, type IngestErrorCode } from '../errors.js';
import { IDEMPOTENCY_KEY_MAX_CHARS } from './idempotency-key.js';
import { sendRequestBodySchema } from './send-request.js';

/**
 * The public send API's shapes as zod schemas (ADR 0015): the request body the route validates with
 * (`sendRequestBodySchema`), and the answers the routes send. `openApiSchema` turns each into the JSON Schema
 * (2020-12, OpenAPI 3.1's dialect) that `/api/v1/openapi.json` publishes.
 */
export const acceptedMessageSchema = z.object({ id: z.uuid(), status: z.enum(SEND_STATES) });

export const messageStatusSchema = z.object({
  id: z.uuid(),
  status: z.enum(SEND_STATES),
  environment: z.enum(['test', 'live']),
  reason_code: z.string().nullable(),
  to: z.string(),
  category: z.enum(SEND_CATEGORIES),
  deliver_by: z.iso.datetime().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  template: z.object({ id: z.uuid(), name: z.string(), version: z.int() }).nullable(),
  wa_message_id: z.string(),
  created_at: z.iso.datetime(),
  transitions: z.array(
    z.object({ state: z.enum(SEND_STATES), at: z.iso.datetime(), reason_code: z.string().nullable() })
  ),
});

/** RFC 9457 problem details with the API's extension members (`code`, `error`, `fields`). */
export const problemSchema = z.object({
  type: z
    .string()
    .describe('URI reference of the problem type, /api/v1/problems/<code>: GET it for a page about this problem'),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.string(),
  error: z.string(),
  fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export const sendHeadersSchema = z.object({
  'x-api-key': z.string().describe('the API key, as printed once by wa-lake api-keys create'),
  'idempotency-key': z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX_CHARS + 2)
    .describe(
      `a Structured Field string ("abc") or a bare key (abc) of 1 to ${String(IDEMPOTENCY_KEY_MAX_CHARS)} characters ` +
        '(the quotes of the first form not counted); remembered 24 h'
    ),
});

export const apiKeyHeaderSchema = sendHeadersSchema.pick({ 'x-api-key': true });
export const messageParamsSchema = z.object({ id: z.uuid() });
export { sendRequestBodySchema };

/** `GET /api/v1/problems/{code}`: one of the API's error codes (ADR 0030). */
export const problemParamsSchema = z.object({
  code: z.enum(Object.keys(INGEST_ERROR_CODES) as [IngestErrorCode, ...IngestErrorCode[]]),
});
/** A problem type's page: Markdown text (RFC 7763). */
export const problemPageSchema = z.string().describe('the problem type described in Markdown');

/** The JSON Schema (2020-12) of a zod schema, without `$schema` (OpenAPI 3.1 embeds it). */
export function openApiSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}
