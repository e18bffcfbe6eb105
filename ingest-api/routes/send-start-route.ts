import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SEND_STARTS_PATH, type SendStartAnswer } from '../../common/send-transition-report.js';
import type { OutboundMessagesRepository } from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import { signedCallOf } from './signed-scope.js';

const checkSchema = z.object({ message_id: z.uuid() });

/**
 * Registers `POST /api/internal/send-starts`: a starting `sendMessage` asks where its message stands in the lake
 * (ADR 0026 §6), signed like the transition reports (checked by the internal signed scope, `internalSignedScope`,
 * ADR 0022). Answers 200 `{ state }`,
 * null for a message the lake does not know; the workflow refuses to run when the state is past `queued`.
 */
export function registerSendStartRoute(
  app: FastifyInstance,
  deps: { messages: Pick<OutboundMessagesRepository, 'get'> }
): void {
  app.post(SEND_STARTS_PATH, async (request, reply) => {
    const { id: messageId, raw } = signedCallOf(request);
    let check;
    try {
      check = checkSchema.parse(JSON.parse(raw.toString('utf8')));
    } catch (err) {
      throw new IngestHttpError('WA_ERR_INVALID_BODY', 'not a send start check', undefined, { cause: err });
    }
    if (check.message_id !== messageId)
      throw new IngestHttpError('WA_ERR_INVALID_EVENT_ID', 'X-Event-Id must be message_id');
    const found = await deps.messages.get(messageId);
    const answer: SendStartAnswer = { state: found?.message.state ?? null };
    return reply.code(200).send(answer);
  });
}
