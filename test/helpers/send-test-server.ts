import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp } from '../../ingest-api/app.js';
import { loadIngestConfig } from '../../ingest-api/config.js';
import { EventsRepository } from '../../lake/events/events-repository.js';
import { createPool } from '../../lake/pool.js';
import { SendAdminRepository } from '../../lake/send/send-admin-repository.js';
import { createIngestMetrics } from '../../ingest-api/metrics.js';
import { generateApiKey } from '../../lake/send/api-key.js';
import { createSendComponents, type SendComponents } from '../../ingest-api/send-wiring.js';
import { silentLogger } from './silent-logger.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_SECRET } from './temporal-env.js';

/** A real ingest API with the send routes, over real HTTP and PostgreSQL. */
export interface SendTestServer {
  url: string;
  pool: pg.Pool;
  app: FastifyInstance;
  send: SendComponents;
  admin: SendAdminRepository;
  close(): Promise<void>;
}

/**
 * Starts the app with send routes. Without `client`, Temporal is an address nobody listens on, so
 * every start fails and rows stay unstarted (the request API must not care).
 */
export async function startSendTestServer(
  databaseUrl: string,
  options: { client?: Client; env?: Record<string, string>; sweepBatchSize?: number } = {}
): Promise<SendTestServer> {
  const logger = silentLogger();
  const config = loadIngestConfig({
    DATABASE_URL: databaseUrl,
    WHATSAPP_WEBHOOK_SECRET: TEST_SECRET,
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    // A start's deadline is wall-clock time: with a real client, a loaded machine must not turn a slow start into
    // a miss that only the sweeper retries (with the same deadline); without one, every start fails at once.
    // A test that sets SEND_API_START_TIMEOUT_MS itself keeps its value.
    SEND_API_START_TIMEOUT_MS: options.client || options.env?.['TEMPORAL_ADDRESS'] ? '10000' : '300',
    SEND_TEXT_MAX_CHARS: '100',
    // The API's own starts are encrypted like every test client's: the workers' codec refuses clear input.
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    ...options.env,
  });
  const pool = createPool(databaseUrl, { max: 8, logger });
  const metrics = createIngestMetrics();
  const send = createSendComponents({
    pool,
    config,
    logger,
    registry: metrics.registry,
    ...(options.client ? { client: options.client } : {}),
    ...(options.sweepBatchSize ? { sweepBatchSize: options.sweepBatchSize } : {}),
  });
  const app = buildApp({
    webhookSecrets: config.webhookSecrets,
    bodyLimitBytes: config.bodyLimitBytes,
    repository: new EventsRepository(pool, logger),
    metrics,
    logger,
    limits: config.limits,
    trustProxy: config.trustProxy,
    send: send.deps,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    pool,
    app,
    send,
    admin: new SendAdminRepository(pool),
    close: async () => {
      await app.close();
      await send.close();
      await pool.end();
    },
  };
}

/** Creates an API key for a fresh account. @returns the key (as a caller presents it) and the account id. */
export async function createTestApiKey(
  admin: SendAdminRepository,
  options: {
    accountId?: string;
    self?: string[];
    dailyLimit?: number;
    monthlyLimit?: number;
    environment?: 'test' | 'live';
    /** Approve the account for live sending (default true for a live key). */
    approve?: boolean;
  } = {}
): Promise<{ key: string; accountId: string; id: string }> {
  const accountId = options.accountId ?? `acct-${randomUUID().slice(0, 8)}`;
  const generated = generateApiKey();
  const id = await admin.createApiKey({
    name: 'test',
    accountId,
    keyHash: generated.hash,
    keyPrefix: generated.prefix,
    webhookUrl: null,
    dailyLimit: options.dailyLimit ?? null,
    monthlyLimit: options.monthlyLimit ?? null,
    environment: options.environment ?? 'live',
  });
  if (options.self) await admin.setAccountParticipants(accountId, options.self);
  if (options.environment !== 'test' && options.approve !== false) await admin.approveAccount(accountId);
  return { key: generated.key, accountId, id };
}

/** A group known to the lake with `members` as current members (and `left` as former ones). */
export async function seedGroup(pool: pg.Pool, members: string[], left: string[] = []): Promise<string> {
  const jid = `1203630${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}@g.us`;
  await pool.query('INSERT INTO whatsapp_groups (jid) VALUES ($1)', [jid]);
  for (const participant of [...members, ...left]) {
    await pool.query(
      `INSERT INTO whatsapp_group_memberships (group_jid, participant_id, role, joined_at, left_at)
       VALUES ($1, $2, 'member', now(), $3)`,
      [jid, participant, left.includes(participant) ? new Date() : null]
    );
  }
  return jid;
}

/** POSTs a send request. */
export async function postMessage(
  url: string,
  apiKey: string | null,
  body: unknown,
  idempotencyKey: string | null = randomUUID()
): Promise<{ status: number; json: Record<string, unknown> }> {
  const { status, json } = await postMessageWithHeaders(url, apiKey, body, idempotencyKey);
  return { status, json };
}

/** POSTs a send request; the answer with its headers. */
export async function postMessageWithHeaders(
  url: string,
  apiKey: string | null,
  body: unknown,
  idempotencyKey: string | null = randomUUID()
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey !== null) headers['x-api-key'] = apiKey;
  if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
  const response = await fetch(`${url}/api/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** GETs a message's state. */
export async function getMessage(
  url: string,
  apiKey: string,
  id: string
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/api/v1/messages/${id}`, { headers: { 'x-api-key': apiKey } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
