import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { expect } from 'vitest';
import { createPostSendStatusWebhook } from '../../activities/post-send-status-webhook.js';
import { createRecordDeadLetter } from '../../activities/record-dead-letter.js';
import { createResolveDeadLetters } from '../../activities/resolve-dead-letters.js';
import type { Alert } from '../../common/alert-sink.js';
import { envPayloadEncryptionKeys } from '../../common/payload-encryption-keys.js';
import { generateWebhookSecret } from '../../common/standard-webhook-signature.js';
import { sealWebhookSecret } from '../../common/webhook-secret-box.js';
import { generateApiKey } from '../../lake/send/api-key.js';
import { sendAckSignal, sendStatusQuery, sendWorkflowId } from '../../workflows/send-contracts.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_SECRET, uniqueTaskQueue } from './temporal-env.js';
import { waitUntil } from './wait-until.js';
import { createSendKit, type SendKit } from './send-workflow-kit.js';
import { postMessage, seedGroup, startSendTestServer, type SendTestServer } from './send-test-server.js';

/** One request the caller's webhook received. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answeredStatus: number;
}

/** A caller's webhook over real HTTP; `answer` decides each status from the path, the webhook-id and the attempt (1-based). */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | null = null;
  answer: (path: string, webhookId: string, attempt: number, body: string) => number = () => 200;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const webhookId = String(request.headers['webhook-id'] ?? '');
        const attempt = this.received.filter((r) => r.headers['webhook-id'] === webhookId).length + 1;
        const status = this.answer(request.url ?? '', webhookId, attempt, body);
        this.received.push({ path: request.url ?? '', headers: request.headers, body, answeredStatus: status });
        response.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":false}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Everything a status-webhook test needs around one Temporal environment (ADR 0011). */
export interface StatusWebhookTestbed {
  server: SendTestServer;
  receiver: Receiver;
  receiverUrl: string;
  /** Alerts raised by the real `recordDeadLetter` (its `events_dead_lettered`). */
  deadLetterAlerts: Alert[];
  /** Fresh workers (a Worker runs once) on a fresh account, with the real status-webhook and dead-letter activities. */
  newKit(): Promise<SendKit>;
  /** A key of `accountId`, with a webhook at `path` of the receiver (secret sealed like the CLI does) or none. */
  createKey(accountId: string, path: string | null): Promise<{ key: string; secret: string | null }>;
  /** Sends one message through the API and drives it to `read` with ACK signals. @returns its id. */
  sendAndRead(apiKey: string, metadata: Record<string, unknown> | null): Promise<string>;
  close(): Promise<void>;
}

/** A real ingest API (send routes, PostgreSQL, status-webhook endpoint) on `env`, and a receiving HTTP server. */
export async function startStatusWebhookTestbed(
  env: Pick<TestWorkflowEnvironment, 'client' | 'nativeConnection'>,
  bundle: WorkflowBundleWithSourceMap,
  databaseUrl: string
): Promise<StatusWebhookTestbed> {
  const taskQueue = uniqueTaskQueue('send-status');
  const encryptionKeys = envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS);
  const receiver = new Receiver();
  const receiverUrl = await receiver.start();
  const server = await startSendTestServer(databaseUrl, {
    client: env.client,
    env: { TEMPORAL_TASK_QUEUE: taskQueue, PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS },
  });
  const deadLetterAlerts: Alert[] = [];
  return {
    server,
    receiver,
    receiverUrl,
    deadLetterAlerts,
    // A fresh account per kit, so each test has its own gate workflow (the last test's is cached by stopped workers).
    newKit: () =>
      createSendKit(env, bundle, {
        taskQueue,
        accountId: `acct-${randomUUID().slice(0, 8)}`,
        activities: {
          postSendStatusWebhook: createPostSendStatusWebhook({
            webhookUrl: `${server.url}/api/webhooks/whatsapp`,
            webhookSecret: TEST_SECRET,
            httpTimeoutMs: 5_000,
            // The receiver listens on 127.0.0.1 over http: the tests allow both explicitly (ADR 0014).
            statusWebhookPolicy: { allowHttp: true, allowPrivate: true },
          }),
          resolveDeadLetters: createResolveDeadLetters({ client: env.client, taskQueue }),
          recordDeadLetter: createRecordDeadLetter({
            client: env.client,
            taskQueue,
            alertSink: {
              send: (alert) => {
                deadLetterAlerts.push(alert);
                return Promise.resolve(true);
              },
            },
          }),
        },
      }),
    async createKey(accountId, path) {
      const generated = generateApiKey();
      const secret = path === null ? null : generateWebhookSecret();
      await server.admin.createApiKey({
        name: 'status-webhook-test',
        accountId,
        keyHash: generated.hash,
        keyPrefix: generated.prefix,
        webhookUrl: path === null ? null : `${receiverUrl}${path}`,
        sealedWebhookSecret: secret === null ? null : sealWebhookSecret(secret, encryptionKeys),
      });
      await server.admin.approveAccount(accountId);
      return { key: generated.key, secret };
    },
    async sendAndRead(apiKey, metadata) {
      const groupJid = await seedGroup(server.pool, []);
      const response = await postMessage(server.url, apiKey, {
        to: groupJid,
        text: 'status webhook test',
        category: 'transactional',
        ...(metadata ? { metadata } : {}),
      });
      expect(response.status).toBe(202);
      const id = response.json['id'] as string;
      const handle = env.client.workflow.getHandle(sendWorkflowId(id));
      await waitUntil(async () => {
        try {
          return (await handle.query(sendStatusQuery)).state === 'dispatched';
        } catch {
          return false;
        }
      });
      for (const status of ['sent', 'delivered', 'read'] as const) {
        await handle.signal(sendAckSignal, { target: handle.workflowId, status, at: new Date().toISOString() });
      }
      await handle.result();
      return id;
    },
    async close() {
      await server.close();
      await receiver.close();
    },
  };
}
