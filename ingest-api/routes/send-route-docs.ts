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
import { PROBLEM_JSON } from '../problem-details.js';

/** The OpenAPI tag of the public send API; `@fastify/swagger` publishes tagged routes only. */
export const PUBLIC_API_TAG = 'messages';

const problem = (description: string): Record<string, unknown> => ({
  description,
  content: { [PROBLEM_JSON.split(';')[0] ?? PROBLEM_JSON]: { schema: openApiSchema(problemSchema) } },
});
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
      202: json('accepted and committed', openApiSchema(acceptedMessageSchema)),
      200: json('idempotent replay: the message this Idempotency-Key created', openApiSchema(acceptedMessageSchema)),
      400: problem('no valid Idempotency-Key, or malformed JSON'),
      401: problem('x-api-key missing, unknown or revoked'),
      403: problem('test key to a non-test recipient, or live key of an unapproved account'),
      409: problem('a request with this Idempotency-Key is still being accepted'),
      413: problem('body too large'),
      415: problem('Content-Type is not application/json'),
      422: problem('invalid body, template, recipient, deadline, or Idempotency-Key reuse'),
      429: problem(
        'the key’s daily or monthly quota is used up (Retry-After, RateLimit), the key sent too many requests, ' +
          'or this address failed too many API-key checks (Retry-After)'
      ),
      503: problem('database unavailable (Retry-After)'),
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
      401: problem('x-api-key missing, unknown or revoked'),
      404: problem('no message with this id for this key'),
      429: problem('this address failed too many API-key checks (Retry-After)'),
      503: problem('database unavailable (Retry-After)'),
    },
  },
};
