import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPostSendStatusWebhook } from '../../../activities/post-send-status-webhook.js';
import { createRecordDeadLetter } from '../../../activities/record-dead-letter.js';
import type { Alert } from '../../../common/alert-sink.js';
import { computeSignature } from '../../../common/hmac-signature.js';
import { SEND_STATUS_WEBHOOKS_PATH } from '../../../common/send-status-webhook.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { generateWebhookSecret } from '../../../common/standard-webhook-signature.js';
import { sealWebhookSecret } from '../../../common/webhook-secret-box.js';
import { generateApiKey } from '../../../ingest-api/send/api-key.js';
import { DEAD_LETTER_WORKFLOW_ID, listDeadLettersQuery } from '../../../workflows/contracts.js';
import {
  sendAckSignal,
  sendStatusQuery,
  sendStatusWebhookId,
  sendWorkflowId,
  type SendState,
} from '../../../workflows/send-contracts.js';
import {
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  TEST_SECRET,
  bundleWorkflows,
  createTimeSkippingEnv,
  testDataConverter,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { createSendKit, type SendKit } from './send-workflow-kit.js';
import { postMessage, seedGroup, startSendTestServer, type SendTestServer } from './send-test-server.js';

/** One request the caller's webhook received. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answeredStatus: number;
}

/** A caller's webhook over real HTTP; `answer` decides each status from the path, the webhook-id and the attempt (1-based). */
class Receiver {
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

let env: TestWorkflowEnvironment;
let server: SendTestServer;
let bundle: WorkflowBundleWithSourceMap;
const deadLetterAlerts: Alert[] = [];
const receiver = new Receiver();
let receiverUrl: string;
const taskQueue = uniqueTaskQueue('send-status');
const encryptionKeys = envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS);

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  receiverUrl = await receiver.start();
  server = await startSendTestServer(inject('databaseUrl'), {
    client: env.client,
    env: { TEMPORAL_TASK_QUEUE: taskQueue, PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS },
  });
  bundle = await bundleWorkflows();
});
afterAll(async () => {
  await server?.close();
  await receiver.close();
  await env?.teardown();
});

/** Fresh workers per test (a Worker runs once) with the real status-webhook and dead-letter activities. */
// A fresh account per test, so each test has its own gate workflow (the last test's is cached by stopped workers).
function newKit(): Promise<SendKit> {
  return createSendKit(env, bundle, {
    taskQueue,
    accountId: `acct-${randomUUID().slice(0, 8)}`,
    activities: {
      postSendStatusWebhook: createPostSendStatusWebhook({
        webhookUrl: `${server.url}/api/webhooks/whatsapp`,
        webhookSecret: TEST_SECRET,
        httpTimeoutMs: 5_000,
      }),
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
  });
}

/** A key of the test account, with a webhook at `path` of the receiver (secret sealed like the CLI does) or none. */
async function createKey(accountId: string, path: string | null): Promise<{ key: string; secret: string | null }> {
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
  return { key: generated.key, secret };
}

async function waitFor(check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not reached');
}

/** Sends one message through the API and drives it to `read` with ACK signals. @returns its id. */
async function sendAndRead(apiKey: string, metadata: Record<string, unknown> | null): Promise<string> {
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
  await waitFor(async () => {
    try {
      return (await handle.query(sendStatusQuery)).state === 'dispatched';
    } catch {
      return false;
    }
  });
  for (const status of ['sent', 'delivered', 'read'] as const) {
    await handle.signal(sendAckSignal, { status, at: new Date().toISOString() });
  }
  await handle.result();
  return id;
}

const STATES: SendState[] = ['queued', 'dispatched', 'sent', 'delivered', 'read'];

/** Replays the recorded histories of these workflow ids with today's code (throws on non-determinism). */
async function replay(workflowIds: string[]): Promise<void> {
  for (const workflowId of workflowIds) {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: bundle, dataConverter: testDataConverter() }, history, workflowId);
  }
}

describe('status webhooks to the caller (issue #10 item 8, ADR 0011)', () => {
  it('delivers each state once to a receiver that answers 500 then 200, with one webhook-id across retries and a signature the standardwebhooks library accepts', async () => {
    const kit = await newKit();
    const { key, secret } = await createKey(kit.accountId, '/flaky');
    receiver.answer = (_path, _id, attempt) => (attempt === 1 ? 500 : 200);
    await kit.run(async () => {
      const id = await sendAndRead(key, { order: 'A-17' });
      for (const state of STATES) {
        await expect(env.client.workflow.getHandle(sendStatusWebhookId(id, state)).result()).resolves.toEqual({
          status: 200,
          outcome: 'delivered',
        });
      }
      const received = receiver.on('/flaky');
      const webhook = new Webhook(secret ?? '');
      const accepted = received.filter((r) => r.answeredStatus === 200);
      expect(accepted.map((r) => r.headers['webhook-id']).sort()).toEqual(
        STATES.map((state) => sendStatusWebhookId(id, state)).sort()
      );
      for (const state of STATES) {
        const attempts = received.filter((r) => r.headers['webhook-id'] === sendStatusWebhookId(id, state));
        expect(attempts.map((r) => r.answeredStatus)).toEqual([500, 200]);
        expect(attempts[0]?.body).toBe(attempts[1]?.body);
      }
      const payloads = accepted.map(
        (r) =>
          webhook.verify(r.body, r.headers as Record<string, string>) as {
            type: string;
            data: { id: string; status: string; sequence: number; at: string; metadata: unknown };
          }
      );
      const byStatus = new Map(payloads.map((payload) => [payload.data.status, payload]));
      STATES.forEach((state, index) => {
        expect(byStatus.get(state)).toMatchObject({
          type: `message.${state}`,
          data: { id, status: state, sequence: index + 1, metadata: { order: 'A-17' } },
        });
      });
      const times = STATES.map((state) => Date.parse(byStatus.get(state)?.data.at ?? ''));
      expect([...times].sort((a, b) => a - b)).toEqual(times);

      await replay([sendWorkflowId(id), sendStatusWebhookId(id, 'sent')]);

      const sample = accepted[0];
      if (!sample) throw new Error('no accepted request');
      const tampered = sample.body.replace(/"status":"[a-z]+"/, '"status":"failed"');
      expect(tampered).not.toBe(sample.body);
      expect(() => webhook.verify(tampered, sample.headers as Record<string, string>)).toThrow(
        WebhookVerificationError
      );
      expect(() =>
        new Webhook(generateWebhookSecret()).verify(sample.body, sample.headers as Record<string, string>)
      ).toThrow(WebhookVerificationError);
    });
  });

  it('dead-letters a status change the receiver rejects with 400 or 422 and sends it no more', async () => {
    const kit = await newKit();
    const { key } = await createKey(kit.accountId, '/rejecting');
    receiver.answer = (path, _id, _attempt, body) => (path === '/rejecting' && body.includes('"queued"') ? 400 : 422);
    await kit.run(async () => {
      const id = await sendAndRead(key, null);
      for (const state of STATES) {
        const failure = await env.client.workflow
          .getHandle(sendStatusWebhookId(id, state))
          .result()
          .then(
            () => null,
            (err: unknown) => err
          );
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        const cause = (failure as WorkflowFailedError).cause;
        expect(cause).toBeInstanceOf(ApplicationFailure);
        expect((cause as ApplicationFailure).type).toBe('StatusWebhookRejectedError');
      }
      const page = await env.client.workflow
        .getHandle(DEAD_LETTER_WORKFLOW_ID)
        .query(listDeadLettersQuery, { limit: 1000 });
      const entries = new Map(page.entries.map((entry) => [entry.eventId, entry]));
      expect(entries.get(sendStatusWebhookId(id, 'queued'))).toMatchObject({
        type: 'send_status:queued',
        httpStatus: 400,
        resolvedAt: null,
      });
      for (const state of STATES.slice(1)) {
        expect(entries.get(sendStatusWebhookId(id, state))).toMatchObject({ httpStatus: 422 });
      }
      expect(deadLetterAlerts.map((alert) => alert.message)).toContain(
        'A send API caller’s webhook rejected status webhooks for good; they are dead-lettered. See `wa-lake dlq list`.'
      );
      // One attempt per status change: a rejected change is never retried.
      const attempts = receiver.received.filter((r) => String(r.headers['webhook-id']).includes(id));
      expect(attempts).toHaveLength(STATES.length);
    });
  });

  it('raises status_webhook_unauthorized on a receiver that answers 401, keeps retrying, and delivers once it accepts', async () => {
    const kit = await newKit();
    const { key } = await createKey(kit.accountId, '/unauthorized');
    receiver.answer = (path, _id, attempt) => (path === '/unauthorized' && attempt <= 2 ? 401 : 200);
    await kit.run(async () => {
      const id = await sendAndRead(key, null);
      for (const state of STATES) {
        await expect(env.client.workflow.getHandle(sendStatusWebhookId(id, state)).result()).resolves.toMatchObject({
          status: 200,
        });
        const attempts = receiver
          .on('/unauthorized')
          .filter((r) => r.headers['webhook-id'] === sendStatusWebhookId(id, state));
        expect(attempts.map((r) => r.answeredStatus)).toEqual([401, 401, 200]);
      }
      // One alert per blocked run (the alert sink dedups across runs by kind and window).
      expect(kit.alerts.filter((alert) => alert.kind === 'status_webhook_unauthorized')).toHaveLength(STATES.length);
      await replay([sendStatusWebhookId(id, 'queued')]);
    });
  });

  it('sends nothing for a key without a webhook URL: no child workflow, no request', async () => {
    const kit = await newKit();
    const { key } = await createKey(kit.accountId, null);
    const before = receiver.received.length;
    await kit.run(async () => {
      const id = await sendAndRead(key, { order: 'B-2' });
      for (const state of STATES) {
        await expect(env.client.workflow.getHandle(sendStatusWebhookId(id, state)).describe()).rejects.toBeInstanceOf(
          WorkflowNotFoundError
        );
      }
      const history = await env.client.workflow.getHandle(sendWorkflowId(id)).fetchHistory();
      const childStarts = (history.events ?? []).filter(
        (event) => event.startChildWorkflowExecutionInitiatedEventAttributes
      );
      expect(childStarts).toHaveLength(0);
    });
    expect(receiver.received.length).toBe(before);
  });

  it('prepares requests only for a correctly signed ask: 401 for a wrong internal signature, url null for a key without webhook', async () => {
    // No workers: the workflows the API starts wait unpolled; only the prepare endpoint is exercised.
    const accountId = `acct-${randomUUID().slice(0, 8)}`;
    const withHook = await createKey(accountId, '/prepared');
    const withoutHook = await createKey(accountId, null);
    const groupJid = await seedGroup(server.pool, []);
    const idOf = async (apiKey: string): Promise<string> => {
      const response = await postMessage(server.url, apiKey, { to: groupJid, text: 'x', category: 'otp' });
      return response.json['id'] as string;
    };
    const ask = async (messageId: string, secret = TEST_SECRET) => {
      const body = JSON.stringify({
        message_id: messageId,
        state: 'sent',
        at: new Date().toISOString(),
        reason_code: null,
        sequence: 3,
      });
      const response = await fetch(`${server.url}${SEND_STATUS_WEBHOOKS_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-event-id': messageId,
          'x-signature': computeSignature(secret, messageId, body),
        },
        body,
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const hooked = await idOf(withHook.key);
    expect((await ask(hooked, 'another-secret-0123456789abcdef')).status).toBe(401);
    expect(await ask(await idOf(withoutHook.key))).toEqual({ status: 200, json: { url: null } });
    const prepared = await ask(hooked);
    expect(prepared.status).toBe(200);
    expect(prepared.json['url']).toBe(`${receiverUrl}/prepared`);
    const headers = prepared.json['headers'] as Record<string, string>;
    expect(headers['webhook-id']).toBe(sendStatusWebhookId(hooked, 'sent'));
    expect(new Webhook(withHook.secret ?? '').verify(prepared.json['body'] as string, headers)).toMatchObject({
      type: 'message.sent',
      data: { id: hooked, sequence: 3 },
    });
    const stored = await server.pool.query<{ webhook_secret: string }>(
      `SELECT k.webhook_secret FROM send_api_keys k JOIN outbound_messages m ON m.api_key_id = k.id WHERE m.id = $1`,
      [hooked]
    );
    expect(stored.rows[0]?.webhook_secret).toMatch(/^aes256gcm:test1:/);
    expect(stored.rows[0]?.webhook_secret).not.toContain((withHook.secret ?? '').slice(6));
  });
});
