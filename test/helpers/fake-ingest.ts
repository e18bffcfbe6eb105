import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { computeSignature } from '../../common/hmac-signature.js';
import { INGEST_PATH } from '../../common/ingest-body.js';

/** One request received on the ingest path. */
export interface FakeIngestRequest {
  /** Request path (the ingest path unless something followed a redirect). */
  path: string;
  eventId: string;
  signature: string;
  contentType: string;
  body: string;
  isSignatureValid: boolean;
}

/**
 * What the fake answers: `'ingest'` behaves like the real API (401 on a bad signature, 201 stored,
 * 200 duplicate with `Idempotent-Replayed`); `{ delayMs }` does that after a delay; `{ status }` answers
 * as given; `'hang'` never answers;
 * `'destroy'` drops the connection; `'store-then-destroy'` commits the row and loses the response.
 */
export type FakeIngestAction =
  | 'ingest'
  | 'hang'
  | 'destroy'
  | 'store-then-destroy'
  | { delayMs: number }
  | { status: number; body?: unknown; headers?: Record<string, string> };

/** A scripted ingest endpoint on 127.0.0.1 (real HTTP), plus an alert webhook receiver on `/alerts`. */
export interface FakeIngest {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  /** `${baseUrl}${INGEST_PATH}` (WEBHOOK_URL). */
  webhookUrl: string;
  /** `${baseUrl}/alerts` (ALERT_WEBHOOK_URL). */
  alertUrl: string;
  requests: FakeIngestRequest[];
  alertBodies: Array<{ content: string; text: string }>;
  /** Stored rows: event_id → body (one per event at most, like `UNIQUE (event_id)`). */
  rows: Map<string, string>;
  /** Secrets the `'ingest'` action accepts. */
  setSecrets(secrets: string[]): void;
  /** Decides the answer per request; returning undefined means `'ingest'`. */
  script(decide: (request: FakeIngestRequest, index: number) => FakeIngestAction | undefined): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/**
 * Starts a fake ingest API on `127.0.0.1:port` (port 0 = a free one).
 * @param options.secrets - secrets accepted by the `'ingest'` action.
 */
export async function startFakeIngest(options: { secrets: string[]; port?: number }): Promise<FakeIngest> {
  let secrets = options.secrets;
  let decide: (request: FakeIngestRequest, index: number) => FakeIngestAction | undefined = () => undefined;
  const requests: FakeIngestRequest[] = [];
  const alertBodies: Array<{ content: string; text: string }> = [];
  const rows = new Map<string, string>();

  const answerLikeIngest = (request: FakeIngestRequest, res: ServerResponse): void => {
    const isValid = secrets.some(
      (secret) => computeSignature(secret, request.eventId, request.body) === request.signature
    );
    if (!isValid) return sendJson(res, 401, { code: 'WA_ERR_BAD_SIGNATURE', error: 'signature mismatch' });
    if (rows.has(request.eventId))
      return sendJson(res, 200, { status: 'duplicate' }, { 'idempotent-replayed': 'true' });
    rows.set(request.eventId, request.body);
    sendJson(res, 201, { status: 'stored' });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.url === '/alerts') {
        alertBodies.push(JSON.parse(body) as { content: string; text: string });
        return res.writeHead(204).end();
      }
      const eventId = String(req.headers['x-event-id'] ?? '');
      const signature = String(req.headers['x-signature'] ?? '');
      const isSignatureValid = secrets.some((secret) => computeSignature(secret, eventId, body) === signature);
      const request: FakeIngestRequest = {
        path: req.url ?? '',
        eventId,
        signature,
        contentType: String(req.headers['content-type'] ?? ''),
        body,
        isSignatureValid,
      };
      requests.push(request);
      const action = decide(request, requests.length - 1) ?? 'ingest';
      if (action === 'hang') return;
      if (action === 'destroy') return req.socket.destroy();
      if (action === 'store-then-destroy') {
        if (isSignatureValid) rows.set(eventId, body);
        return req.socket.destroy();
      }
      if (action === 'ingest') return answerLikeIngest(request, res);
      if ('delayMs' in action) {
        await new Promise((resolve) => setTimeout(resolve, action.delayMs));
        return answerLikeIngest(request, res);
      }
      sendJson(res, action.status, action.body ?? {}, action.headers);
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    webhookUrl: `${baseUrl}${INGEST_PATH}`,
    alertUrl: `${baseUrl}/alerts`,
    requests,
    alertBodies,
    rows,
    setSecrets: (next) => (secrets = next),
    script: (next) => (decide = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
