import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import type { DeliverEventInput } from '../../../workflows/contracts.js';
import { deliverEvent } from '../../../workflows/index.js';
import { startFakeIngest, type FakeIngest } from '../../helpers/fake-ingest.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  sampleBody,
  testWorkerConfig,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  TEST_SECRET,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';

// ADR 0010: what the Temporal server stores on disk. One dev server with its SQLite state in a
// file; one event delivered through clients/workers without the codec, one with it. The encrypted
// event's text and phone must appear nowhere in the file (history, search attributes, memos).
let dir: string;
let temporal: DevTemporal;
let ingest: FakeIngest;
let bundle: WorkflowBundleWithSourceMap;
const workers: RunningWorker[] = [];
let isTemporalClosed = false;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-privacy-'));
  [temporal, ingest, bundle] = await Promise.all([
    startDevTemporal({ dbFile: join(dir, 'temporal.sqlite') }),
    startFakeIngest({ secrets: [TEST_SECRET] }),
    bundleWorkflows(),
  ]);
});
afterAll(async () => {
  for (const worker of workers) await worker.stop();
  await ingest?.close();
  if (!isTemporalClosed) await temporal?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A message with a unique text and a unique phone number, as the collector would send it. */
function messageInput(): { input: DeliverEventInput; text: string; phone: string } {
  const eventId = randomUUID();
  const text = `privacy probe ${randomUUID()}`;
  const phone = `55${randomInt(10_000_000, 99_999_999)}${randomInt(1000, 9999)}`;
  const body = sampleBody(eventId, {
    payload: {
      key: { id: eventId, participant: '100000000000001@lid', participantAlt: `${phone}@s.whatsapp.net` },
      message: { conversation: text },
    },
  });
  return { input: { eventId, type: 'messages.upsert', chatJid: '120363000000000001@g.us', body }, text, phone };
}

async function deliverThrough(client: Client, encryptionKeys: string): Promise<{ text: string; phone: string }> {
  const taskQueue = uniqueTaskQueue('privacy');
  const config = testWorkerConfig({
    WEBHOOK_URL: ingest.webhookUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_ADDRESS: temporal.server.address,
    PAYLOAD_ENCRYPTION_KEYS: encryptionKeys,
  });
  workers.push(await runWorker({ config, logger: silentLogger(), workflowBundle: bundle }));
  const { input, text, phone } = messageInput();
  const result = await client.workflow.execute(deliverEvent, { taskQueue, workflowId: input.eventId, args: [input] });
  expect(result).toMatchObject({ status: 201, outcome: 'stored' });
  expect(ingest.rows.get(input.eventId)).toContain(text);
  return { text, phone };
}

/** Every byte the dev server keeps for its state: the SQLite file and its write-ahead log. */
function readServerState(): string {
  const base = join(dir, 'temporal.sqlite');
  return [base, `${base}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');
}

describe('payload encryption in the Temporal dev server database', () => {
  it('finds message text and phone number without the codec, and neither with it', async () => {
    const clearClient = new Client({ connection: temporal.client.connection, namespace: 'default' });
    const clear = await deliverThrough(clearClient, '');
    const encrypted = await deliverThrough(temporal.client, TEST_PAYLOAD_ENCRYPTION_KEYS);
    // Stopping the server checkpoints its write-ahead log into the file.
    for (const worker of workers.splice(0)) await worker.stop();
    await temporal.close();
    isTemporalClosed = true;

    const state = readServerState();
    expect(state).toContain(clear.text);
    expect(state).toContain(clear.phone);
    expect(state).not.toContain(encrypted.text);
    expect(state).not.toContain(encrypted.phone);
  });
});
