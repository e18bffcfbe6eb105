import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { registerProblemRoutes } from './problem-routes.js';
import { PUBLIC_API_TAG } from './send-route-docs.js';

/** Where the public API's OpenAPI 3.1 document is served (ADR 0015). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * Registers the public API with its OpenAPI 3.1 description (ADR 0015): `@fastify/swagger`
 * collects the schemas of the routes `registerRoutes` adds (generated from the zod schemas they validate with,
 * `send/send-api-schemas.ts`; only routes tagged `messages` are published) and `GET /api/v1/openapi.json`
 * serves the document, next to the problem types' pages (`GET /api/v1/problems[/:code]`, ADR 0030) that every
 * problem body's `type` links to. The routes are added inside a plugin so that swagger's route hook sees them.
 */
export function registerPublicApi(app: FastifyInstance, registerRoutes: (instance: FastifyInstance) => void): void {
  void app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'wa-lake send API',
        version: '1',
        description:
          'Outbound WhatsApp messages (architecture.md §12). Errors are RFC 9457 problem details; ' +
          'each `type` is a relative URI whose page GET /api/v1/problems/{code} serves. Idempotency-Key follows ' +
          'draft-ietf-httpapi-idempotency-key-header (keys remembered 24 h; a replay answers 202 again with ' +
          'Idempotent-Replayed: true; 409 while another API process still accepts the key).',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
    hideUntagged: true,
  });
  void app.register((instance, _options, done) => {
    registerProblemRoutes(instance);
    registerRoutes(instance);
    instance.get(
      OPENAPI_PATH,
      {
        schema: {
          tags: [PUBLIC_API_TAG],
          summary: 'This OpenAPI 3.1 document',
          security: [],
          response: { 200: { description: 'the document', type: 'object' } },
        },
        serializerCompiler: () => (data) => JSON.stringify(data),
      },
      () => instance.swagger()
    );
    done();
  });
}
