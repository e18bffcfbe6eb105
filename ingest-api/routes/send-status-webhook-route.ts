import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { PayloadEncryptionKeys } from '../../common/payload-encryption-keys.js';
import {
  SEND_STATUS_WEBHOOK_OUTCOMES_PATH,
  SEND_STATUS_WEBHOOKS_PATH,
  STATUS_WEBHOOK_DISABLE_AFTER_MS,
  type PreparedStatusWebhook,
  type StatusWebhookOutcomeAnswer,
} from '../../common/send-status-webhook.js';
import { openWebhookSecret } from '../../common/webhook-secret-box.js';
import { SEND_STATES } from '../../workflows/send-contracts.js';
import type { StatusWebhookTargets } from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import { buildStatusWebhookRequest } from '../send/status-webhook-request.js';
import { signedCallOf } from './signed-scope.js';

const prepareSchema = z.object({
  message_id: z.uuid(),
  state: z.enum(SEND_STATES),
  at: z.iso.datetime({ offset: true }),
  reason_code: z.string().max(100).nullable(),
  sequence: z.int().min(1).max(100),
});

/**
 * Registers `POST /api/internal/send-status-webhooks` (ADR 0011): the worker's
 * `postSendStatusWebhook` activity asks, per attempt, for the signed Standard Webhooks request of one
 * status change; the key's secret is opened here and never leaves this process. Signed with method, path and
 * time (`X-Event-Id` = message id; checked by `internalSignedScope`, ADR 0022). Answers 200 {@link PreparedStatusWebhook}; `url: null` when the
 * key has no webhook. 401 bad signature, 422 malformed, 500 when the stored secret cannot be opened.
 */
export function registerSendStatusWebhookRoute(
  app: FastifyInstance,
  deps: {
    targets: Pick<StatusWebhookTargets, 'find' | 'recordOutcome'>;
    /** `PAYLOAD_ENCRYPTION_KEYS`, which open the sealed webhook secrets. */
    encryptionKeys: PayloadEncryptionKeys;
    /** `SEND_WEBHOOK_DISABLE_AFTER_MS` (ADR 0014 decision 8). */
    disableAfterMs?: number;
    now?: () => number;
  }
): void {
  registerOutcomeRoute(app, deps);
  app.post(SEND_STATUS_WEBHOOKS_PATH, async (request, reply) => {
    const { id: messageId, raw } = signedCallOf(request);
    let change;
    try {
      change = prepareSchema.parse(JSON.parse(raw.toString('utf8')));
    } catch (err) {
      throw new IngestHttpError('WA_ERR_INVALID_BODY', 'not a status webhook request', undefined, { cause: err });
    }
    if (change.message_id !== messageId)
      throw new IngestHttpError('WA_ERR_INVALID_EVENT_ID', 'X-Event-Id must be message_id');
    const target = await deps.targets.find(messageId);
    if (!target) return reply.code(200).send({ url: null } satisfies PreparedStatusWebhook);
    let secret: string;
    try {
      secret = openWebhookSecret(target.sealedSecret, deps.encryptionKeys);
    } catch (err) {
      request.log.error({ err, messageId }, 'cannot open the webhook secret of this message’s API key');
      throw new IngestHttpError('WA_ERR_INTERNAL', 'internal error', undefined, { cause: err });
    }
    const prepared = buildStatusWebhookRequest(
      { url: target.url, secret, metadata: target.metadata },
      {
        messageId,
        state: change.state,
        at: change.at,
        reasonCode: change.reason_code,
        sequence: change.sequence,
      },
      (deps.now ?? Date.now)()
    );
    return reply.code(200).send({ ...prepared, is_failing: target.isFailing } satisfies PreparedStatusWebhook);
  });
}

const outcomeSchema = z.object({
  message_id: z.uuid(),
  delivered: z.boolean(),
  status: z.int().min(100).max(599).nullable(),
});

/**
 * Registers `POST /api/internal/send-status-webhook-outcomes` (ADR 0014 decision 8): the worker reports each
 * failed attempt, and a success while the endpoint was failing; the key's endpoint is disabled after
 * `SEND_WEBHOOK_DISABLE_AFTER_MS` of failures or a 410. Answers {@link StatusWebhookOutcomeAnswer}.
 */
function registerOutcomeRoute(
  app: FastifyInstance,
  deps: {
    targets: Pick<StatusWebhookTargets, 'recordOutcome'>;
    disableAfterMs?: number;
    now?: () => number;
  }
): void {
  app.post(SEND_STATUS_WEBHOOK_OUTCOMES_PATH, async (request, reply) => {
    const { id: messageId, raw } = signedCallOf(request);
    let report;
    try {
      report = outcomeSchema.parse(JSON.parse(raw.toString('utf8')));
    } catch (err) {
      throw new IngestHttpError('WA_ERR_INVALID_BODY', 'not a status webhook outcome', undefined, { cause: err });
    }
    if (report.message_id !== messageId)
      throw new IngestHttpError('WA_ERR_INVALID_EVENT_ID', 'X-Event-Id must be message_id');
    const result = await deps.targets.recordOutcome(
      report.message_id,
      { isDelivered: report.delivered, status: report.status },
      new Date((deps.now ?? Date.now)()),
      deps.disableAfterMs ?? STATUS_WEBHOOK_DISABLE_AFTER_MS
    );
    if (result.isDisabledNow)
      request.log.warn({ keyId: result.keyId, reason: result.reason }, 'status webhook endpoint disabled');
    return reply.code(200).send({
      disabled: result.isDisabled,
      disabled_now: result.isDisabledNow,
      key_id: result.keyId,
      reason: result.reason,
    } satisfies StatusWebhookOutcomeAnswer);
  });
}
