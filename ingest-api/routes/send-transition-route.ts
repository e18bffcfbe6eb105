import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SEND_TRANSITIONS_PATH } from '../../common/send-transition-report.js';
import { SEND_STATES } from '../../workflows/send-contracts.js';
import type { OutboundMessagesRepository } from '../../lake/index.js';
import type { SendMetrics } from '../send/send-metrics.js';
import { IngestHttpError } from '../errors.js';
import { signedCallOf } from './signed-scope.js';

const reportSchema = z.object({
  message_id: z.uuid(),
  state: z.enum(SEND_STATES),
  at: z.iso.datetime({ offset: true }),
  reason_code: z.string().max(100).nullable(),
});

/**
 * Registers `POST /api/internal/send-transitions`: the `sendMessage` workflow's activity reports each
 * state it reaches, signed with method, path and time (`X-Event-Id` = message id, `X-Timestamp`, `X-Signature`;
 * checked by the internal signed scope, `internalSignedScope`, ADR 0022), so the worker needs no database access. Answers 200
 * `{changed}`; the row only moves forward (architecture.md §12: monotonic).
 */
export function registerSendTransitionRoute(
  app: FastifyInstance,
  deps: {
    messages: Pick<OutboundMessagesRepository, 'recordTransition'>;
    metrics?: SendMetrics | undefined;
  }
): void {
  app.post(SEND_TRANSITIONS_PATH, async (request, reply) => {
    const { id: messageId, raw } = signedCallOf(request);
    let report;
    try {
      report = reportSchema.parse(JSON.parse(raw.toString('utf8')));
    } catch (err) {
      throw new IngestHttpError('WA_ERR_INVALID_BODY', 'not a send transition report', undefined, { cause: err });
    }
    if (report.message_id !== messageId)
      throw new IngestHttpError('WA_ERR_INVALID_EVENT_ID', 'X-Event-Id must be message_id');
    const at = new Date(report.at);
    const outcome = await deps.messages.recordTransition(messageId, report.state, at, report.reason_code);
    if (outcome.createdAt && deps.metrics) {
      if (report.state === 'failed' || report.state === 'expired') {
        deps.metrics.failures.inc({ state: report.state, reason: report.reason_code ?? 'unknown' });
      } else {
        const latencySeconds = Math.max(at.getTime() - outcome.createdAt.getTime(), 0) / 1000;
        deps.metrics.stateLatency.observe({ state: report.state }, latencySeconds);
      }
    }
    return reply.code(200).send({ changed: outcome.isChanged });
  });
}
