import type { FastifyInstance, RouteShorthandOptions } from 'fastify';
import { IngestHttpError } from '../errors.js';
import { isProblemCode, renderProblemIndex, renderProblemPage } from '../problem-catalogue.js';
import { PROBLEMS_PATH } from '../problem-details.js';
import { openApiSchema, problemPageSchema, problemParamsSchema } from '../send/send-api-schemas.js';
import { problemResponse, PUBLIC_API_TAG } from './send-route-docs.js';

/** Media type of a problem type's page (RFC 7763). */
export const MARKDOWN = 'text/markdown; charset=utf-8';

// The pages change only with a release.
const CACHE_CONTROL = 'public, max-age=3600';

const markdownResponse = (description: string): Record<string, unknown> => ({
  description,
  content: { [MARKDOWN.split(';')[0] ?? MARKDOWN]: { schema: openApiSchema(problemPageSchema) } },
});

const documented = (summary: string, schema: Record<string, unknown>): RouteShorthandOptions => ({
  schema: { tags: [PUBLIC_API_TAG], summary, security: [], ...schema },
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
});

/**
 * Registers the pages of the problem types (RFC 9457 §3.1.1, ADR 0030), so that every `type` of a problem
 * body resolves to a description a person can read, generated from `problem-catalogue.ts`:
 * - `GET /api/v1/problems`: every problem type with its status and link (`text/markdown`);
 * - `GET /api/v1/problems/:code`: one problem type (`text/markdown`); 404 problem for an unknown code.
 * No API key: the pages describe the API, not an account.
 */
export function registerProblemRoutes(app: FastifyInstance): void {
  app.get(
    PROBLEMS_PATH,
    documented('Every problem type of the API', { response: { 200: markdownResponse('the list, in Markdown') } }),
    async (_request, reply) => reply.type(MARKDOWN).header('cache-control', CACHE_CONTROL).send(renderProblemIndex())
  );
  app.get<{ Params: { code: string } }>(
    `${PROBLEMS_PATH}/:code`,
    documented('The page of one problem type: what a problem body’s `type` links to', {
      params: openApiSchema(problemParamsSchema),
      response: {
        200: markdownResponse('the problem type, in Markdown'),
        404: problemResponse('no problem type with this code'),
      },
    }),
    async (request, reply) => {
      const { code } = request.params;
      if (!isProblemCode(code)) throw new IngestHttpError('WA_ERR_NOT_FOUND', 'no problem type with this code');
      return reply.type(MARKDOWN).header('cache-control', CACHE_CONTROL).send(renderProblemPage(code));
    }
  );
}
