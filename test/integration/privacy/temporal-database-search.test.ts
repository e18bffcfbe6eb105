import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { generateWebhookSecret } from '../../../common/standard-webhook-signature.js';
import { sealWebhookSecret } from '../../../common/webhook-secret-box.js';
import { generateApiKey } from '../../../lake/send/api-key.js';
import { deliverEvent } from '../../../workflows/index.js';
import { sendStatusWebhookId, sendWorkflowId } from '../../../workflows/send-contracts.js';
import { startSendStack, type SendStack } from '../../helpers/send-stack.js';
import { postMessage, seedGroup, type SendTestServer } from '../../helpers/send-test-server.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  TEST_SECRET,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';
import { WhatsAppSendDouble } from '../../helpers/whatsapp-send-double.js';

// ADR 0022: nothing personal in clear in Temporal. One dev server keeps its state in a file; a delivered
// message, a dead-lettered delivery, a send, and a status webhook to a URL with credentials (fetch refuses it and
// names the URL in its error) all run with the codec on. Afterwards not one message text, phone number, group
// subject, URL credential or secret of those runs is in the file.
const SELF = '100000000000081@lid';
let dir: string;
let temporal: DevTemporal;
let bundle: WorkflowBundleWithSourceMap;
let stack: SendStack;
let server: SendTestServer;
let isTemporalClosed = false;
const double = new WhatsAppSendDouble();
const taskQueue = uniqueTaskQueue('db-search');
const accountId = `acct-${randomUUID().slice(0, 8)}`;
/** Every string of these runs that must not be found in Temporal's database. */
const secrets = new Map<string, string>();

const unique = (label: string): string => {
  const value = `${label}-${randomUUID()}`;
  secrets.set(label, value);
  return value;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-db-search-'));
  [temporal, bundle] = await Promise.all([
    startDevTemporal({ dbFile: join(dir, 'temporal.sqlite') }),
    bundleWorkflows(),
  ]);
  stack = await startSendStack({
    databaseUrl: inject('databaseUrl'),
    temporal,
    bundle,
    taskQueue,
    accountId,
    outboxDir: dir,
    socket: double,
    workerEnv: { HTTP_TIMEOUT_MS: '3000' },
  });
  server = stack.server;
});
afterAll(async () => {
  await stack?.stop();
  if (!isTemporalClosed) await temporal?.close();
  rmSync(dir, { recursive: true, force: true });
});

function messageBody(eventId: string, type = 'messages.upsert'): string {
  const phone = `55${randomInt(10_000_000, 99_999_999)}${randomInt(1000, 9999)}`;
  secrets.set(`phone ${type.slice(0, 8)}`, phone);
  return JSON.stringify({
    type,
    chat_jid: '120363000000000081@g.us',
    payload: {
      key: { id: eventId, participant: '100000000000082@lid', participantAlt: `${phone}@s.whatsapp.net` },
      message: { conversation: unique(`text ${type.slice(0, 8)}`) },
      subject: unique(`subject ${type.slice(0, 8)}`),
    },
    captured_at: new Date().toISOString(),
  });
}

/** Every byte the dev server keeps for its state: the SQLite file and its write-ahead log. */
function readServerState(): string {
  const base = join(dir, 'temporal.sqlite');
  return [base, `${base}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');
}

describe("the Temporal dev server's database after runs with the codec (ADR 0022)", () => {
  it('holds no message text, phone number, group subject, URL credential or secret', async () => {
    // A delivered message.
    const storedId = randomUUID();
    const stored = await temporal.client.workflow.execute(deliverEvent, {
      taskQueue,
      workflowId: storedId,
      args: [{ eventId: storedId, type: 'messages.upsert', chatJid: null, body: messageBody(storedId) }],
    });
    expect(stored).toMatchObject({ outcome: 'stored' });

    // A dead-lettered delivery: the ingest API refuses a `type` over 100 characters with 422.
    const rejectedId = randomUUID();
    const longType = `x${'y'.repeat(100)}${randomUUID()}`;
    await expect(
      temporal.client.workflow.execute(deliverEvent, {
        taskQueue,
        workflowId: rejectedId,
        args: [
          { eventId: rejectedId, type: 'messages.upsert', chatJid: null, body: messageBody(rejectedId, longType) },
        ],
      })
    ).rejects.toBeInstanceOf(WorkflowFailedError);

    // A send by an API key whose status webhook URL carries credentials: fetch refuses it, naming the URL.
    const generated = generateApiKey();
    const webhookSecret = generateWebhookSecret();
    secrets.set('webhook secret', webhookSecret);
    const password = unique('url password');
    await server.admin.createApiKey({
      name: 'db-search',
      accountId,
      keyHash: generated.hash,
      keyPrefix: generated.prefix,
      webhookUrl: `http://hook-user:${password}@127.0.0.1:1/hook`,
      sealedWebhookSecret: sealWebhookSecret(
        webhookSecret,
        envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS)
      ),
    });
    await server.admin.setAccountParticipants(accountId, [SELF]);
    await server.admin.approveAccount(accountId);
    const groupJid = await seedGroup(server.pool, [SELF]);
    const sendText = unique('send text');
    const accepted = await postMessage(server.url, generated.key, { to: groupJid, text: sendText, category: 'otp' });
    expect(accepted.status).toBe(202);
    await expect.poll(() => double.wire.map((send) => send.text), { timeout: 60_000 }).toContain(sendText);
    // The status webhook of `queued` has failed on the credentialed URL at least twice (its failure is recorded).
    const statusWebhookId = sendStatusWebhookId(String(accepted.json['id']), 'queued');
    await expect
      .poll(
        async () => {
          const description = await temporal.client.workflow.getHandle(statusWebhookId).describe();
          const raw = description.raw.pendingActivities?.[0];
          return raw?.attempt ?? 0;
        },
        { timeout: 60_000, interval: 250 }
      )
      .toBeGreaterThanOrEqual(2);
    await temporal.client.workflow.getHandle(sendWorkflowId(String(accepted.json['id']))).terminate('test over');
    await temporal.client.workflow.getHandle(statusWebhookId).terminate('test over');

    secrets.set('internal signing secret', TEST_SECRET);
    for (const [index, entry] of TEST_PAYLOAD_ENCRYPTION_KEYS.split(',').entries()) {
      secrets.set(`encryption key ${index}`, entry.slice(entry.indexOf(':') + 1));
    }
    await stack.sendSide.stop();
    await stack.worker.stop();
    await temporal.close();
    isTemporalClosed = true;

    const state = readServerState();
    // The test finds what it searches for: the workflow ids it started are there in clear.
    expect(state).toContain(storedId);
    expect(state).toContain(statusWebhookId);
    const found = [...secrets].filter(([, value]) => state.includes(value)).map(([label]) => label);
    expect(found).toEqual([]);
  });
});
