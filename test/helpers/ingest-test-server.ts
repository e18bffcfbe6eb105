import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { computeSignature } from '../../common/hmac-signature.js';
import { INGEST_PATH } from '../../common/ingest-body.js';
import { createRootLogger, type Logger } from '../../common/logger.js';
import { buildApp } from '../../ingest-api/app.js';
import { EventsRepository } from '../../lake/events/events-repository.js';
import { createPool } from '../../lake/pool.js';
import { createIngestMetrics, type IngestMetrics } from '../../ingest-api/metrics.js';
import { TEST_ERASURE_KEY } from './erasure-key.js';

export const SECRET_A = 'test-secret-aaaaaaaaaaaaaaaa';
export const SECRET_B = 'test-secret-bbbbbbbbbbbbbbbb';

/** A real ingest API on 127.0.0.1 with its own pool, for one test file. */
export interface TestIngestServer {
  url: string;
  pool: pg.Pool;
  app: FastifyInstance;
  metrics: IngestMetrics;
  logs: string[];
  close(): Promise<void>;
}

/** Options of {@link startTestIngestServer}. */
export interface TestIngestServerOptions {
  secrets?: string[];
  bodyLimitBytes?: number;
  /** Pool size (default 8). */
  poolMax?: number;
  /** How long a request waits for a pooled connection (ms; default `CONNECTION_TIMEOUT_MS`). */
  connectionTimeoutMs?: number;
}

/** Starts the app over real HTTP (`listen({ port: 0 })`) against `databaseUrl`. */
export async function startTestIngestServer(
  databaseUrl: string,
  options: TestIngestServerOptions = {}
): Promise<TestIngestServer> {
  const logs: string[] = [];
  const logger: Logger = createRootLogger({
    level: 'warn',
    destination: new Writable({
      write: (chunk: Buffer, _enc, done) => {
        logs.push(chunk.toString());
        done();
      },
    }),
  });
  const pool = createPool(databaseUrl, {
    max: options.poolMax ?? 8,
    logger,
    connectionTimeoutMs: options.connectionTimeoutMs,
  });
  const metrics = createIngestMetrics();
  const app = buildApp({
    webhookSecrets: options.secrets ?? [SECRET_A, SECRET_B],
    bodyLimitBytes: options.bodyLimitBytes ?? 4 * 1024 * 1024,
    repository: new EventsRepository(pool, logger, {
      onInsertBatch: (rows) => metrics.insertBatchRows.observe(rows),
      erasureKey: TEST_ERASURE_KEY,
    }),
    metrics,
    logger,
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: address,
    pool,
    app,
    metrics,
    logs,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

/** Options of {@link postSigned}. */
export interface PostOptions {
  eventId?: string;
  secret?: string;
  contentType?: string | null;
  headers?: Record<string, string>;
  signature?: string;
}

/** POSTs the exact bytes `body` to the ingest path, signed like the collector signs (architecture.md §7). */
export async function postSigned(
  url: string,
  body: string | Buffer,
  options: PostOptions = {}
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const eventId = options.eventId ?? randomUUID();
  const headers: Record<string, string> = {
    'x-event-id': eventId,
    'x-signature': options.signature ?? computeSignature(options.secret ?? SECRET_A, eventId, body),
    ...options.headers,
  };
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${url}${INGEST_PATH}`, { method: 'POST', headers, body, redirect: 'manual' });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/** A valid delivery body for a group text message; `overrides` replace top-level fields. */
export function messageBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'messages.upsert',
    chat_jid: '120363000000000001@g.us',
    captured_at: '2026-01-01T00:00:00.000Z',
    upsert_type: 'notify',
    payload: {
      key: {
        remoteJid: '120363000000000001@g.us',
        fromMe: false,
        id: randomUUID(),
        participant: '100000000000001@lid',
      },
      messageTimestamp: 1700000000,
      message: { conversation: 'hello group' },
    },
    ...overrides,
  });
}

/** A raw HTTP answer as read off the socket: status code, lower-cased header names, body text. */
export interface RawHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `bytes` as-is on a new TCP connection to `url` (no HTTP client to fix them up) and reads until
 * the server closes the connection.
 *
 * @throws Error when the connection fails or the answer has no status line.
 */
export async function sendRawHttp(url: string, bytes: string): Promise<RawHttpAnswer> {
  const { hostname, port } = new URL(url);
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(bytes);
  });
  const headerEnd = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, headerEnd === -1 ? text.length : headerEnd).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1];
  if (status === undefined) throw new Error(`no HTTP status line in ${JSON.stringify(text.slice(0, 200))}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(status), headers, body: headerEnd === -1 ? '' : text.slice(headerEnd + 4) };
}
