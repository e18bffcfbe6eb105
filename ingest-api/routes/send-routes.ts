import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deriveWaMessageId } from '../../common/wa-message-id.js';
import {
  type IdempotencyClaim,
  type IdempotencyClaims,
  normalizeRecipient,
  type OutboundMessage,
  type OutboundMessagesRepository,
  type SendIntentBatchWriter,
  type SendIntentCandidate,
  type SendTemplatesRepository,
} from '../../lake/index.js';
import { IngestHttpError } from '../errors.js';
import type { ApiKeyCache, ApiKeyIdentity } from '../send/api-key-cache.js';
import { readIdempotencyKey } from '../send/idempotency-key.js';
import { acceptedBody, answerReplay } from '../send/idempotent-replay.js';
import { parseSendJson } from '../send/parse-send-json.js';
import { exhaustedQuotaName, quotaHeaders } from '../send/quota-headers.js';
import { resolveMessageText } from '../send/resolve-message-text.js';
import type { SendMetrics } from '../send/send-metrics.js';
import { checkDeliverBy, hashSendRequest, parseSendRequest } from '../send/send-request.js';
import { stringifyJsonExactly } from '../../common/exact-json-text.js';
import { isUuidText } from '../../common/uuid-text.js';
import { getMessageRouteOptions, postMessageRouteOptions } from './send-route-docs.js';

/** Path of the send request API (architecture.md §12). */
export const SEND_MESSAGES_PATH = '/api/v1/messages';

/**
 * Per-key rate of `POST /api/v1/messages` (ADR 0014), called once the key is authenticated.
 * @throws IngestHttpError `WA_ERR_SEND_RATE_LIMITED` (429, `Retry-After` set) past the key's quota.
 */
export type SendKeyQuota = (request: FastifyRequest, reply: FastifyReply, apiKeyId: string) => Promise<void>;

/** What the send routes need. */
export interface SendRouteDeps {
  apiKeys: Pick<ApiKeyCache, 'find' | 'findFresh' | 'forget'>;
  /** Checks and commits intents by group commit (one statement for concurrent requests). */
  intents: Pick<SendIntentBatchWriter, 'submit'>;
  messages: Pick<OutboundMessagesRepository, 'get'>;
  /** The Idempotency-Key claims every API process of the lake sees (409 while one is held; ADR 0030). */
  claims: Pick<IdempotencyClaims, 'claim' | 'release'>;
  /** Called after COMMIT of a new intent; must not throw or wait for Temporal. */
  onAccepted: (message: OutboundMessage) => void;
  /** Longest accepted text, in characters (`SEND_TEXT_MAX_CHARS`). */
  textMaxChars: number;
  /** Template lookup for `{template, variables}` requests (ADR 0015). */
  templates: Pick<SendTemplatesRepository, 'resolve'>;
  metrics?: SendMetrics | undefined;
  /** Per-key rate of accepted requests; `buildApp` supplies it (`installRequestGuards`). */
  quota?: SendKeyQuota | undefined;
}

function header(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return typeof value === 'string' ? value.trim() : '';
}

function badApiKey(): IngestHttpError {
  return new IngestHttpError('WA_ERR_BAD_API_KEY', 'x-api-key is missing, unknown or revoked');
}

function parseJson(request: FastifyRequest): unknown {
  const essence = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (essence !== 'application/json')
    throw new IngestHttpError('WA_ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  return parseSendJson(raw.toString('utf8'));
}

function inFlight(): IngestHttpError {
  return new IngestHttpError(
    'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT',
    'a request with this Idempotency-Key is still being accepted; retry shortly with the same key and body'
  );
}

/**
 * Submits a candidate under its Idempotency-Key claim (ADR 0030): 409 when another request of any API process holds
 * the claim. The accept statement releases the claim in the transaction that decides the request; when the
 * statement never ran to its end, the claim is released here.
 */
async function submitClaimed(
  deps: Pick<SendRouteDeps, 'claims' | 'intents'>,
  candidate: SendIntentCandidate,
  log: FastifyRequest['log']
): Promise<Awaited<ReturnType<SendRouteDeps['intents']['submit']>>> {
  const claim: IdempotencyClaim = {
    apiKeyId: candidate.apiKeyId,
    idempotencyKey: candidate.idempotencyKey,
    token: candidate.id,
  };
  if (!(await deps.claims.claim(claim))) throw inFlight();
  try {
    return await deps.intents.submit(candidate);
  } catch (err) {
    // A claim left behind would answer 409 until its lease ends; a failed release leaves exactly that.
    await deps.claims.release(claim).catch((releaseErr: unknown) => {
      log.warn({ err: releaseErr }, 'idempotency claim not released');
    });
    throw err;
  }
}

/**
 * The checks that need no database, in the order the API answers them: `Idempotency-Key` (400), body
 * (415/400/422). A passed deadline or a `to` that is no recipient is not thrown here but returned as
 * `rejection`: a replay of an accepted request must still get its first answer, so the idempotency lookup comes first.
 */
async function prepareCandidate(
  request: FastifyRequest,
  apiKey: ApiKeyIdentity,
  deps: Pick<SendRouteDeps, 'textMaxChars' | 'templates'>
): Promise<{ candidate: SendIntentCandidate; rejection: IngestHttpError | null }> {
  const { textMaxChars } = deps;
  const reading = readIdempotencyKey(request.headers['idempotency-key']);
  if (!('key' in reading)) throw new IngestHttpError(reading.code, reading.detail);
  const idempotencyKey = reading.key;
  const sendRequest = parseSendRequest(parseJson(request), textMaxChars);
  const recipient = normalizeRecipient(sendRequest.to);
  let rejection = checkDeliverBy(sendRequest.deliverByMs, Date.now());
  if (rejection === null && !recipient) {
    rejection = new IngestHttpError('WA_ERR_INVALID_RECIPIENT', 'to must be a group JID (…@g.us) or a phone number');
  }
  const resolved = await resolveMessageText(sendRequest, {
    accountId: apiKey.accountId,
    mayUseDrafts: apiKey.environment === 'test',
    templates: deps.templates,
    textMaxChars,
  });
  if ('rejection' in resolved) rejection ??= resolved.rejection;
  const id = randomUUID();
  const candidate: SendIntentCandidate = {
    id,
    apiKeyId: apiKey.id,
    idempotencyKey,
    requestHash: hashSendRequest(sendRequest),
    toJid: recipient?.jid ?? null,
    isGroup: recipient?.kind === 'group',
    text: 'text' in resolved ? resolved.text : '',
    templateId: 'template' in resolved ? (resolved.template?.id ?? null) : null,
    templateVersion: 'template' in resolved ? (resolved.template?.version ?? null) : null,
    category: sendRequest.category,
    deliverBy: sendRequest.deliverByMs === null ? null : new Date(sendRequest.deliverByMs),
    metadata: sendRequest.metadata,
    waMessageId: deriveWaMessageId(id),
    isInsertable: rejection === null,
  };
  return { candidate, rejection };
}

function acceptedMessage(
  candidate: SendIntentCandidate,
  outcome: { accountId: string; createdAt: Date; hasStatusWebhook: boolean }
): OutboundMessage {
  return {
    id: candidate.id,
    apiKeyId: candidate.apiKeyId,
    accountId: outcome.accountId,
    requestHash: candidate.requestHash,
    toJid: candidate.toJid ?? '',
    text: candidate.text,
    category: candidate.category,
    deliverBy: candidate.deliverBy,
    metadata: candidate.metadata,
    state: 'queued',
    reasonCode: null,
    waMessageId: candidate.waMessageId,
    workflowStartedAt: null,
    createdAt: outcome.createdAt,
    hasStatusWebhook: outcome.hasStatusWebhook,
  };
}

/**
 * Registers the send request API (architecture.md §12, ADR 0009):
 * - `POST /api/v1/messages` (`x-api-key`, `Idempotency-Key`, body `{to, text, category, deliver_by?,
 *   metadata?}`): 401 bad key → 400 no Idempotency-Key → 415/400/422 body → 409 while a request with the key is
 *   being accepted by any API process (ADR 0030) → replay of the same key: the first answer again (202, same
 *   body, `Idempotent-Replayed: true`) or 422 `WA_ERR_IDEMPOTENCY_MISMATCH` → 422 deadline passed → 422 bad or
 *   not-allowed recipient → 429 `WA_ERR_QUOTA_EXCEEDED` (key's daily/monthly quota, with `Retry-After` and
 *   RateLimit fields; ADR 0015) → commit → `202 {id, status: 'queued'}` (RateLimit fields when limited); the workflow start follows the answer.
 *   Everything after the body checks is one group-committed statement (`lake/send/send-intent-statement.ts`),
 *   which also re-checks that the (possibly cached) key is not revoked.
 * - `GET /api/v1/messages/:id`: the key's own message with every transition time; 404 otherwise.
 */
export function registerSendRoutes(app: FastifyInstance, deps: SendRouteDeps): void {
  app.post(SEND_MESSAGES_PATH, postMessageRouteOptions, async (request, reply) => {
    const presentedKey = header(request, 'x-api-key');
    const apiKey = await deps.apiKeys.find(presentedKey);
    if (!apiKey) throw badApiKey();
    await deps.quota?.(request, reply, apiKey.id);
    let prepared: Awaited<ReturnType<typeof prepareCandidate>>;
    try {
      prepared = await prepareCandidate(request, apiKey, deps);
    } catch (err) {
      // The key may come from the cache: a revoked key gets 401, not a verdict on its body.
      if (!(await deps.apiKeys.findFresh(presentedKey))) throw badApiKey();
      throw err;
    }
    const { candidate, rejection } = prepared;
    // draft-ietf-httpapi-idempotency-key-header §2.7: a repeat while the first is still being accepted is 409.
    const outcome = await submitClaimed(deps, candidate, request.log);
    switch (outcome.kind) {
      case 'key-revoked':
        deps.apiKeys.forget(presentedKey);
        throw badApiKey();
      case 'existing':
        return answerReplay(reply, outcome, candidate.requestHash);
      case 'not-insertable':
        throw rejection ?? new Error('accept statement refused an insertable request');
      case 'not-allowed':
        throw new IngestHttpError(
          'WA_ERR_RECIPIENT_NOT_ALLOWED',
          candidate.isGroup
            ? 'the sending account is not a member of this group'
            : 'this number has not opted in to messages from the sending account'
        );
      case 'not-a-test-recipient':
        throw new IngestHttpError(
          'WA_ERR_NOT_A_TEST_RECIPIENT',
          'a test key sends only to the account’s test recipients (wa-lake test-recipients add)'
        );
      case 'account-not-approved':
        throw new IngestHttpError(
          'WA_ERR_ACCOUNT_NOT_APPROVED',
          'this account is not approved for live sending (wa-lake accounts approve); use a test key meanwhile'
        );
      case 'over-quota': {
        const nowMs = Date.now();
        throw new IngestHttpError(
          'WA_ERR_QUOTA_EXCEEDED',
          `this API key's ${exhaustedQuotaName(outcome.usage, nowMs)} quota is used up`,
          undefined,
          { headers: quotaHeaders(outcome.usage, nowMs, true) }
        );
      }
      case 'inserted': {
        request.log.info({ messageId: candidate.id, category: candidate.category }, 'send request accepted');
        deps.metrics?.accepted.inc({ category: candidate.category });
        deps.onAccepted(acceptedMessage(candidate, outcome));
        if (outcome.usage) void reply.headers(quotaHeaders(outcome.usage, Date.now(), false));
        return reply.code(202).send(acceptedBody(candidate.id));
      }
    }
  });

  app.get<{ Params: { id: string } }>(`${SEND_MESSAGES_PATH}/:id`, getMessageRouteOptions, async (request, reply) => {
    const apiKey = await deps.apiKeys.findFresh(header(request, 'x-api-key'));
    if (!apiKey) throw badApiKey();
    const found = isUuidText(request.params.id) ? await deps.messages.get(request.params.id) : null;
    if (!found || found.message.apiKeyId !== apiKey.id) {
      throw new IngestHttpError('WA_ERR_MESSAGE_NOT_FOUND', 'no message with this id for this API key');
    }
    const { message, transitions } = found;
    // Metadata may hold bigints (integers beyond 2^53, ADR 0014): written as their digits.
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .serializer(stringifyJsonExactly)
      .send({
        id: message.id,
        status: message.state,
        environment: apiKey.environment,
        reason_code: message.reasonCode,
        to: message.toJid,
        category: message.category,
        deliver_by: message.deliverBy?.toISOString() ?? null,
        metadata: message.metadata,
        template: message.template ?? null,
        wa_message_id: message.waMessageId,
        created_at: message.createdAt.toISOString(),
        transitions: transitions.map((t) => ({ state: t.state, at: t.at.toISOString(), reason_code: t.reasonCode })),
      });
  });
}
