/**
 * The Web UI screenshot of docs/runbook.md §12: the workflow list filtered by
 * `WaSendState = 'dispatched'`, with messages the socket accepted but WhatsApp never acknowledged. From
 * the real thing: a `temporal` dev server with the wa-lake search attributes, the real `sendMessage` and
 * `sendGate` workflows on a real worker, the real gate activities, the collector's real
 * `dispatchWhatsAppMessage` on the account's session queue over a socket double that accepts every
 * message and never ACKs, and headless Chromium. `sendMessage` itself upserts `WaSendState` on each
 * transition, so the list shows what an operator would see. Called by scripts/capture-ui-screenshots.ts
 * (`--only send` runs just this one).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import type { Activities } from '../activities/index.js';
import { createSendGateActivities } from '../activities/request-dispatch-slot.js';
import { createDispatchActivity } from '../collector/send/dispatch-activity.js';
import type { SendSocket } from '../collector/session/send-socket.js';
import { deriveWaMessageId } from '../common/wa-message-id.js';
import { startTemporalDevServer } from '../dev-stack/temporal-dev-server.js';
import { resolveWorkflowsPath } from '../worker/workflows-path.js';
import {
  SEND_MESSAGE_WORKFLOW_TYPE,
  WA_SEND_STATE,
  sendWorkflowId,
  sessionTaskQueue,
  type SendMessageInput,
} from '../workflows/send-contracts.js';

const NAMESPACE = 'default';
const TASK_QUEUE = 'wa-lake-send-screenshots';
const ACCOUNT_ID = 'default';
const STUCK_MESSAGES = 3;
/** The runbook's query; the screenshot shows exactly this filter. */
export const STUCK_IN_DISPATCHED_QUERY = `ExecutionStatus = 'Running' AND WaSendState = 'dispatched'`;

/** A socket whose messages go "on the wire" and are never acknowledged: the lost-ACK case. */
const neverAckingSocket: SendSocket = {
  sendPresenceUpdate: () => Promise.resolve(),
  sendMessage: () => Promise.resolve({}),
  onWhatsApp: (...jids) => Promise.resolve(jids.map((jid) => ({ jid, exists: true }))),
};

function stuckInput(index: number): SendMessageInput {
  const messageId = randomUUID();
  return {
    messageId,
    accountId: ACCOUNT_ID,
    toJid: `12025550${String(100 + index)}@s.whatsapp.net`,
    text: `Your code is ${String(100000 + index)}`,
    category: 'otp',
    deliverBy: null,
    waMessageId: deriveWaMessageId(messageId),
  };
}

async function waitForVisibility(client: Client, query: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt += 1) {
    if ((await client.workflow.count(query)).count >= count) return;
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 500));
  }
  throw new Error(`visibility never showed ${count} workflows for ${query}`);
}

/**
 * Captures `ui-send-stuck-dispatched.png` into `outDir`: starts {@link STUCK_MESSAGES} `sendMessage`
 * workflows (Workflow ID `send-<message_id>`, started with `WaSendState = 'queued'` as the ingest API
 * does), lets them reach `dispatched`, and shoots the list filtered by {@link STUCK_IN_DISPATCHED_QUERY}.
 * @param cliPath - the `temporal` binary.
 * @throws Error when visibility never shows the stuck workflows (60 s).
 */
export async function captureSendScreenshot(browser: Browser, cliPath: string, outDir: string): Promise<void> {
  const temporal = await startTemporalDevServer({ cliPath });
  const connection = await Connection.connect({ address: temporal.address });
  const workerConnection = await NativeConnection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: NAMESPACE });
  const activities: Partial<Activities> = {
    // No ingest API here: transitions are not reported, and the ACK-missing alert goes nowhere.
    reportSendTransition: () => Promise.resolve(),
    sendAlert: () => Promise.resolve({ sent: true }),
    ...createSendGateActivities({
      client,
      taskQueue: TASK_QUEUE,
      gate: { ratePerMinute: 60, burst: STUCK_MESSAGES, marketingJitterMaxMs: 0 },
    }),
  };
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: NAMESPACE,
    taskQueue: TASK_QUEUE,
    workflowsPath: resolveWorkflowsPath(new URL('../worker/workflows-path.ts', import.meta.url).href),
    activities,
  });
  const sessionWorker = await Worker.create({
    connection: workerConnection,
    namespace: NAMESPACE,
    taskQueue: sessionTaskQueue(ACCOUNT_ID),
    activities: createDispatchActivity({ getSocket: () => neverAckingSocket, rememberSent: () => undefined }),
  });
  const running = Promise.all([worker.run(), sessionWorker.run()]);
  try {
    const inputs = Array.from({ length: STUCK_MESSAGES }, (_, index) => stuckInput(index));
    for (const input of inputs) {
      await client.workflow.start(SEND_MESSAGE_WORKFLOW_TYPE, {
        workflowId: sendWorkflowId(input.messageId),
        taskQueue: TASK_QUEUE,
        args: [input],
        typedSearchAttributes: [{ key: WA_SEND_STATE, value: 'queued' }],
      });
    }
    await waitForVisibility(client, STUCK_IN_DISPATCHED_QUERY, STUCK_MESSAGES);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const url = `${temporal.uiUrl ?? ''}/namespaces/${NAMESPACE}/workflows?query=${encodeURIComponent(STUCK_IN_DISPATCHED_QUERY)}`;
    await page.goto(url, { waitUntil: 'networkidle' });
    await page
      .getByText(sendWorkflowId(inputs[0]?.messageId ?? ''))
      .first()
      .waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1_000);
    const file = join(outDir, 'ui-send-stuck-dispatched.png');
    await page.screenshot({ path: file });
    process.stdout.write(`wrote ${file}\n`);
  } finally {
    worker.shutdown();
    sessionWorker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    await temporal.stop();
  }
}
