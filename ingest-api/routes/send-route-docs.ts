import type { RouteShorthandOptions } from 'fastify';
import {
  acceptedMessageSchema,
  apiKeyHeaderSchema,
  messageParamsSchema,
  messageStatusSchema,
  openApiSchema,
  problemSchema,
  sendHeadersSchema,
  sendRequestBodySchema,
} from '../send/send-api-schemas.js';
import type { IngestErrorCode } from '../errors.js';
import { PROBLEM_JSON, problemType } from '../problem-details.js';

/** The OpenAPI tag of the public send API; `@fastify/swagger` publishes tagged routes only. */
export const PUBLIC_API_TAG = 'messages';

/**
 * An OpenAPI response of problem details (RFC 9457); `codes` are the problem types it may carry, each named with
 * the URI its `type` holds, which `GET /api/v1/problems/<code>` answers (ADR 0030).
 */
export function problemResponse(description: string, codes: readonly IngestErrorCode[] = []): Record<string, unknown> {
  const types = codes.map((code) => `[${code}](${problemType(code)})`).join(', ');
  return {
    description: codes.length === 0 ? description : `${description}. Problem types: ${types}`,
    content: { [PROBLEM_JSON.split(';')[0] ?? PROBLEM_JSON]: { schema: openApiSchema(problemSchema) } },
  };
}
const header = (description: string): Record<string, unknown> => ({ description, type: 'string' });
/** The quota headers of an answer to a key with a daily or monthly quota (draft-ietf-httpapi-ratelimit-headers). */
const RATE_LIMIT_HEADERS = {
  ratelimit: header('the key’s remaining quota and the seconds until it resets, when the key has a quota'),
  'ratelimit-policy': header('the key’s quota policies (daily, monthly), when the key has a quota'),
};
const json = (description: string, schema: Record<string, unknown>): Record<string, unknown> => ({
  description,
  content: { 'application/json': { schema } },
});

// The schemas document the routes; the routes validate with zod themselves (the body arrives as raw bytes,
// ADR 0009), so Fastify's own validator and serializer stay out of the way.
const documentationOnly: Pick<RouteShorthandOptions, 'validatorCompiler' | 'serializerCompiler'> = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data) => JSON.stringify(data),
};

/** Route options of `POST /api/v1/messages`: its OpenAPI description (ADR 0015). */
export const postMessageRouteOptions: RouteShorthandOptions = {
  ...documentationOnly,
  schema: {
    tags: [PUBLIC_API_TAG],
    summary: 'Accept a message to send (text, or a template with variables)',
    headers: openApiSchema(sendHeadersSchema),
    body: openApiSchema(sendRequestBodySchema),
    response: {
      202: {
        ...json(
          'accepted and committed; or, with Idempotent-Replayed: true, the first answer to this Idempotency-Key ' +
            'and body again (same status, same body; ADR 0030)',
          openApiSchema(acceptedMessageSchema)
        ),
        headers: {
          ...RATE_LIMIT_HEADERS,
          'idempotent-replayed': {
            description: 'present (true) when this answer repeats the first answer to this Idempotency-Key',
            type: 'string',
            enum: ['true'],
          },
        },
      },
      400: problemResponse('no valid Idempotency-Key, or malformed JSON', [
        'WA_ERR_MISSING_IDEMPOTENCY_KEY',
        'WA_ERR_INVALID_IDEMPOTENCY_KEY',
        'WA_ERR_INVALID_JSON',
      ]),
      401: problemResponse('x-api-key missing, unknown or revoked', ['WA_ERR_BAD_API_KEY']),
      403: problemResponse('test key to a non-test recipient, or live key of an unapproved account', [
        'WA_ERR_NOT_A_TEST_RECIPIENT',
        'WA_ERR_ACCOUNT_NOT_APPROVED',
      ]),
      409: problemResponse('a request with this Idempotency-Key is still being accepted, by any API process', [
        'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT',
      ]),
      413: problemResponse('body too large', ['WA_ERR_BODY_TOO_LARGE']),
      415: problemResponse('Content-Type is not application/json', ['WA_ERR_UNSUPPORTED_MEDIA_TYPE']),
      422: problemResponse('invalid body, template, recipient, deadline, or Idempotency-Key reuse', [
        'WA_ERR_IDEMPOTENCY_MISMATCH',
        'WA_ERR_IDEMPOTENCY_KEY_EXPIRED',
        'WA_ERR_INVALID_BODY',
        'WA_ERR_UNKNOWN_FIELD',
        'WA_ERR_UNKNOWN_CATEGORY',
        'WA_ERR_TEXT_TOO_LONG',
        'WA_ERR_UNREPRESENTABLE_JSON',
        'WA_ERR_METADATA_TOO_LARGE',
        'WA_ERR_DELIVER_BY_PASSED',
        'WA_ERR_DELIVER_BY_TOO_FAR',
        'WA_ERR_INVALID_RECIPIENT',
        'WA_ERR_RECIPIENT_NOT_ALLOWED',
        'WA_ERR_TEMPLATE_NOT_FOUND',
        'WA_ERR_TEMPLATE_NOT_APPROVED',
        'WA_ERR_TEMPLATE_VARIABLE_MISSING',
        'WA_ERR_TEMPLATE_VARIABLE_UNKNOWN',
      ]),
      429: {
        ...problemResponse(
          'the key’s daily or monthly quota is used up (Retry-After, RateLimit), the key sent too many requests, ' +
            'or this address failed too many API-key checks (Retry-After)',
          ['WA_ERR_QUOTA_EXCEEDED', 'WA_ERR_SEND_RATE_LIMITED', 'WA_ERR_TOO_MANY_AUTH_FAILURES']
        ),
        headers: { ...RATE_LIMIT_HEADERS, 'retry-after': header('seconds to wait before trying again') },
      },
      503: problemResponse('database unavailable (Retry-After)', [
        'WA_ERR_DATABASE_UNAVAILABLE',
        'WA_ERR_DATABASE_BUSY',
      ]),
    },
  },
};

/** Route options of `GET /api/v1/messages/:id` (ADR 0015). */
export const getMessageRouteOptions: RouteShorthandOptions = {
  ...documentationOnly,
  schema: {
    tags: [PUBLIC_API_TAG],
    summary: 'A message’s state and every transition',
    headers: openApiSchema(apiKeyHeaderSchema),
    params: openApiSchema(messageParamsSchema),
    response: {
      200: json('the message', openApiSchema(messageStatusSchema)),
      401: problemResponse('x-api-key missing, unknown or revoked', ['WA_ERR_BAD_API_KEY']),
      404: problemResponse('no message with this id for this key', ['WA_ERR_MESSAGE_NOT_FOUND']),
      429: problemResponse('this address failed too many API-key checks (Retry-After)', [
        'WA_ERR_TOO_MANY_AUTH_FAILURES',
      ]),
      503: problemResponse('database unavailable (Retry-After)', [
        'WA_ERR_DATABASE_UNAVAILABLE',
        'WA_ERR_DATABASE_BUSY',
      ]),
    },
  },
};
