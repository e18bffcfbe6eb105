import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deriveWaMessageId } from '../../common/wa-message-id.js';
import type { OutboundMessage, OutboundMessagesRepository } from '../db/outbound-messages-repository.js';
import type { ApiKeyRecord, SendAdminRepository } from '../db/send-admin-repository.js';
import { IngestHttpError } from '../errors.js';
import { hashApiKey } from '../send/api-key.js';
import type { SendMetrics } from '../send/send-metrics.js';
import { normalizeRecipient } from '../send/recipient.js';
import { hashSendRequest, parseSendRequest } from '../send/send-request.js';

/** Path of the send request API (architecture.md §12). */
export const SEND_MESSAGES_PATH = '/api/v1/messages';
const IDEMPOTENCY_KEY_MAX_CHARS = 255;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the send routes need. */
export interface SendRouteDeps {
  admin: Pick<SendAdminRepository, 'findActiveApiKey' | 'isRecipientAllowed'>;
  messages: Pick<OutboundMessagesRepository, 'findByIdempotencyKey' | 'insert' | 'get'>;
  /** Called after COMMIT of a new intent; must not throw or wait for Temporal. */
  onAccepted: (message: OutboundMessage) => void;
  /** Longest accepted text, in characters (`SEND_TEXT_MAX_CHARS`). */
  textMaxChars: number;
  metrics?: SendMetrics | undefined;
}

function header(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return typeof value === 'string' ? value.trim() : '';
}

async function authenticate(request: FastifyRequest, deps: SendRouteDeps): Promise<ApiKeyRecord> {
  const key = header(request, 'x-api-key');
  const record = key === '' ? null : await deps.admin.findActiveApiKey(hashApiKey(key));
  if (!record) throw new IngestHttpError('WA_ERR_BAD_API_KEY', 'x-api-key is missing, unknown or revoked');
  return record;
}

function parseJson(request: FastifyRequest): unknown {
  const essence = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (essence !== 'application/json')
    throw new IngestHttpError('WA_ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (err) {
    throw new IngestHttpError('WA_ERR_INVALID_JSON', 'body is not valid JSON', undefined, { cause: err });
  }
}

function answerExisting(reply: FastifyReply, message: OutboundMessage, requestHash: string): FastifyReply {
  if (message.requestHash !== requestHash) {
    throw new IngestHttpError(
      'WA_ERR_IDEMPOTENCY_MISMATCH',
      'this Idempotency-Key was already used with a different body'
    );
  }
  return reply.code(200).header('idempotent-replayed', 'true').send({ id: message.id, status: message.state });
}

/**
 * Registers the send request API (architecture.md §12, issue #10):
 * - `POST /api/v1/messages` (`x-api-key`, `Idempotency-Key`, body `{to, text, category, deliver_by?,
 *   metadata?}`): 401 bad key → 400 no Idempotency-Key → 415/400/422 body → replay of the same key: 200
 *   with the same id (same body) or 422 `WA_ERR_IDEMPOTENCY_MISMATCH` → 422 deadline passed → 422 bad or
 *   not-allowed recipient → commit → `202 {id, status: 'queued'}`; the workflow start follows the answer.
 * - `GET /api/v1/messages/:id`: the key's own message with every transition time; 404 otherwise.
 */
export function registerSendRoutes(app: FastifyInstance, deps: SendRouteDeps): void {
  app.post(SEND_MESSAGES_PATH, async (request, reply) => {
    const apiKey = await authenticate(request, deps);
    const idempotencyKey = header(request, 'idempotency-key');
    if (idempotencyKey === '' || idempotencyKey.length > IDEMPOTENCY_KEY_MAX_CHARS) {
      throw new IngestHttpError(
        'WA_ERR_MISSING_IDEMPOTENCY_KEY',
        'Idempotency-Key header (1–255 characters) is required'
      );
    }
    const sendRequest = parseSendRequest(parseJson(request), deps.textMaxChars);
    const requestHash = hashSendRequest(sendRequest);
    const existing = await deps.messages.findByIdempotencyKey(apiKey.id, idempotencyKey);
    if (existing) return answerExisting(reply, existing, requestHash);
    if (sendRequest.deliverByMs !== null && sendRequest.deliverByMs <= Date.now()) {
      throw new IngestHttpError('WA_ERR_DELIVER_BY_PASSED', 'deliver_by must be in the future');
    }
    const recipient = normalizeRecipient(sendRequest.to);
    if (!recipient) {
      throw new IngestHttpError('WA_ERR_INVALID_RECIPIENT', 'to must be a group JID (…@g.us) or a phone number');
    }
    if (!(await deps.admin.isRecipientAllowed(apiKey.accountId, recipient))) {
      throw new IngestHttpError(
        'WA_ERR_RECIPIENT_NOT_ALLOWED',
        recipient.kind === 'group'
          ? 'the sending account is not a member of this group'
          : 'this number has not opted in to messages from the sending account'
      );
    }
    const id = randomUUID();
    const outcome = await deps.messages.insert({
      id,
      apiKeyId: apiKey.id,
      accountId: apiKey.accountId,
      idempotencyKey,
      requestHash,
      toJid: recipient.jid,
      text: sendRequest.text,
      category: sendRequest.category,
      deliverBy: sendRequest.deliverByMs === null ? null : new Date(sendRequest.deliverByMs),
      metadata: sendRequest.metadata,
      waMessageId: deriveWaMessageId(id),
    });
    if (!outcome.isInserted) return answerExisting(reply, outcome.message, requestHash);
    request.log.info({ messageId: id, category: sendRequest.category }, 'send request accepted');
    deps.metrics?.accepted.inc({ category: sendRequest.category });
    deps.onAccepted(outcome.message);
    return reply.code(202).send({ id, status: outcome.message.state });
  });

  app.get<{ Params: { id: string } }>(`${SEND_MESSAGES_PATH}/:id`, async (request, reply) => {
    const apiKey = await authenticate(request, deps);
    const found = UUID.test(request.params.id) ? await deps.messages.get(request.params.id) : null;
    if (!found || found.message.apiKeyId !== apiKey.id) {
      throw new IngestHttpError('WA_ERR_MESSAGE_NOT_FOUND', 'no message with this id for this API key');
    }
    const { message, transitions } = found;
    return reply.code(200).send({
      id: message.id,
      status: message.state,
      reason_code: message.reasonCode,
      to: message.toJid,
      category: message.category,
      deliver_by: message.deliverBy?.toISOString() ?? null,
      metadata: message.metadata,
      wa_message_id: message.waMessageId,
      created_at: message.createdAt.toISOString(),
      transitions: transitions.map((t) => ({ state: t.state, at: t.at.toISOString(), reason_code: t.reasonCode })),
    });
  });
}
