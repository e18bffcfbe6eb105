import { createHash, timingSafeEqual } from 'node:crypto';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from '../common/logger.js';
import { payloadsFromJson, payloadsJsonSchema, payloadsToJson } from './payload-json.js';

/** Dependencies of {@link buildCodecServerApp}. */
export interface CodecServerDeps {
  codec: PayloadCodec;
  /** The bearer token (≥ 16 characters). */
  token: string;
  /** Browser origins (Temporal Web UI) answered with CORS headers, e.g. `http://127.0.0.1:8233`. */
  corsOrigins: readonly string[];
  logger: Logger;
}

/** Error codes of the codec server; the body is `{ error, code }` like the ingest API's (house style §4). */
export const CODEC_SERVER_ERROR_CODES = {
  WA_ERR_CODEC_UNAUTHORIZED: 401,
  WA_ERR_CODEC_BAD_REQUEST: 400,
  WA_ERR_CODEC_UNDECODABLE: 422,
  WA_ERR_NOT_FOUND: 404,
} as const;
type CodecServerErrorCode = keyof typeof CODEC_SERVER_ERROR_CODES;

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function sendError(reply: FastifyReply, code: CodecServerErrorCode, message: string): FastifyReply {
  return reply.code(CODEC_SERVER_ERROR_CODES[code]).send({ error: message, code });
}

/**
 * Builds the codec server (architecture.md §14, ADR 0010) without listening: Temporal's remote codec
 * protocol, `POST /encode` and `POST /decode` with `{payloads: [...]}` bodies, so the Web UI and the
 * `temporal` CLI (`--codec-endpoint`, `--codec-auth "Bearer …"`) show decrypted payloads to whoever holds
 * the token. The token is accepted as `Authorization: Bearer <token>`, or as the first path segment
 * (`/<token>/decode`) because the dev server's Web UI cannot attach a static header: its codec endpoint
 * is then `http://host:port/<token>`. Request URLs are never logged (they may hold the token).
 * CORS: only `corsOrigins` get `Access-Control-Allow-Origin`; preflights need no token.
 */
export function buildCodecServerApp(deps: CodecServerDeps): FastifyInstance {
  const loggerInstance: FastifyBaseLogger = deps.logger.child({ component: 'codec-server' });
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 8 * 1024 * 1024,
  });
  const tokenDigest = digest(deps.token);
  const isToken = (candidate: string | undefined): boolean =>
    candidate !== undefined && timingSafeEqual(digest(candidate), tokenDigest);
  const origins = new Set(deps.corsOrigins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin && origins.has(origin)) {
      void reply
        .header('access-control-allow-origin', origin)
        .header('vary', 'Origin')
        .header('access-control-allow-credentials', 'true')
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-allow-methods', 'POST, OPTIONS');
    }
  });
  app.options('*', async (_request, reply) => reply.code(204).send());

  const handle =
    (direction: 'encode' | 'decode') =>
    async (request: FastifyRequest<{ Params: { token?: string } }>, reply: FastifyReply) => {
      const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      // Every caller needs the token, whatever its `Origin` says: any program can send that header (ADR 0028).
      if (!isToken(bearer) && !isToken(request.params.token)) {
        return sendError(reply, 'WA_ERR_CODEC_UNAUTHORIZED', 'a valid bearer token is required');
      }
      const body = payloadsJsonSchema.safeParse(request.body);
      if (!body.success) return sendError(reply, 'WA_ERR_CODEC_BAD_REQUEST', 'body must be {"payloads": [...]} or {}');
      try {
        const payloads = payloadsFromJson(body.data);
        const result = direction === 'encode' ? await deps.codec.encode(payloads) : await deps.codec.decode(payloads);
        return reply.send(payloadsToJson(result));
      } catch (err) {
        request.log.warn({ err, direction }, 'codec request failed');
        return sendError(reply, 'WA_ERR_CODEC_UNDECODABLE', err instanceof Error ? err.message : String(err));
      }
    };
  for (const direction of ['encode', 'decode'] as const) {
    app.post(`/${direction}`, handle(direction));
    app.post(`/:token/${direction}`, handle(direction));
  }
  app.setNotFoundHandler((_request, reply) => sendError(reply, 'WA_ERR_NOT_FOUND', 'POST /encode or /decode'));
  app.setErrorHandler((err, request, reply) => {
    request.log.warn({ err }, 'codec request rejected');
    return sendError(reply, 'WA_ERR_CODEC_BAD_REQUEST', 'request body must be JSON');
  });
  return app;
}
