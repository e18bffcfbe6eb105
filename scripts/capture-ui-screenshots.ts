/**
 * Produces the Temporal Web UI screenshots that docs/runbook.md embeds, from the real
 * thing: the `temporal` dev server with the wa-lake search attributes, the real `deliverEvent` and
 * `deadLetter` workflows and activities on a real worker, a stub ingest endpoint on 127.0.0.1 that answers
 * 201, 401, 422 or 503 per event, and the real Web UI driven by headless Chromium (Debian's `chromium`
 * through `playwright-core`).
 *
 *   npx tsx scripts/capture-ui-screenshots.ts [--out docs/images] [--cli-path PATH] [--chromium /usr/bin/chromium]
 *     [--only privacy]   (just the codec-server pair, scripts/capture-privacy-screenshots.ts)
 *     [--only send]      (just the messages stuck in `dispatched`, scripts/capture-send-screenshot.ts)
 *
 * Needs `apt-get install -y chromium`; CI does not run it. Writes PNGs named after the runbook sections.
 */
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { chromium, type Page } from 'playwright-core';
import { createActivities } from '../activities/index.js';
import type { AlertSink } from '../common/alert-sink.js';
import { EVENT_ID_HEADER } from '../common/ingest-body.js';
import { resolveTemporalCliPath } from '../dev-stack/temporal-binaries.js';
import { startTemporalDevServer } from '../dev-stack/temporal-dev-server.js';
import { resolveWorkflowsPath } from '../worker/workflows-path.js';
import {
  DELIVER_EVENT_WORKFLOW_TYPE,
  WA_CHAT_JID,
  WA_DELIVERY_STATE,
  WA_EVENT_TYPE,
  type DeliverEventInput,
} from '../workflows/contracts.js';
import { capturePrivacyScreenshots } from './capture-privacy-screenshots.js';
import { captureSendScreenshot } from './capture-send-screenshot.js';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const NAMESPACE = 'default';
const TASK_QUEUE = 'wa-lake-delivery';
/** A queue no worker polls: its workflows stay `pending`, as when the worker is down. */
const IDLE_TASK_QUEUE = 'wa-lake-delivery-no-worker';
const GROUP_A = '120363000000000001@g.us';
const GROUP_B = '120363000000000002@g.us';

/** One synthetic event and the status the stub ingest answers for it. */
interface Scenario {
  eventId: string;
  type: string;
  chatJid: string;
  ingestStatus: 201 | 401 | 422 | 503 | null;
}

const SCENARIOS: Scenario[] = [
  { eventId: '7c301bfa-8af7-53a4-9bc3-8e9bcf75641d', type: 'messages.upsert', chatJid: GROUP_A, ingestStatus: 201 },
  { eventId: '0b8d3c52-6f1e-5a7b-8c9d-0e1f2a3b4c5d', type: 'groups.metadata', chatJid: GROUP_A, ingestStatus: 201 },
  { eventId: '1c9e4d63-7a2f-5b8c-9d0e-1f2a3b4c5d6e', type: 'messages.reaction', chatJid: GROUP_B, ingestStatus: 201 },
  { eventId: '2dae5e74-8b3a-5c9d-8e1f-2a3b4c5d6e7f', type: 'messages.upsert', chatJid: GROUP_A, ingestStatus: 401 },
  {
    eventId: '3ebf6f85-9c4b-5dae-9f2a-3b4c5d6e7f80',
    type: 'group-participants.update',
    chatJid: GROUP_B,
    ingestStatus: 401,
  },
  { eventId: '4fc07096-ad5c-5ebf-8a3b-4c5d6e7f8091', type: 'messages.update', chatJid: GROUP_A, ingestStatus: 422 },
  { eventId: '50d181a7-be6d-5fc0-9b4c-5d6e7f8091a2', type: 'messages.upsert', chatJid: GROUP_B, ingestStatus: 503 },
  { eventId: '61e292b8-cf7e-50d1-8c5d-6e7f8091a2b3', type: 'messages.upsert', chatJid: GROUP_B, ingestStatus: null },
];

function scenarioById(eventId: string | undefined): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.eventId === eventId);
}

/** The stub ingest API: the status of each event is fixed by its scenario; bodies mimic the real API's. */
async function startStubIngest(): Promise<{ url: string; server: Server }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    const scenario = scenarioById(request.headers[EVENT_ID_HEADER.toLowerCase()] as string | undefined);
    const status = scenario?.ingestStatus ?? 503;
    const body =
      status === 201
        ? { status: 'stored' }
        : status === 401
          ? { code: 'WA_ERR_BAD_SIGNATURE', error: 'signature does not match' }
          : status === 422
            ? { code: 'WA_ERR_INVALID_BODY', error: 'payload must not be empty' }
            : { code: 'WA_ERR_DATABASE_UNAVAILABLE', error: 'database unavailable' };
    response.writeHead(status, {
      'content-type': 'application/json',
      ...(status === 503 ? { 'retry-after': '5' } : {}),
    });
    response.end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/webhooks/whatsapp`, server };
}

async function startScenarioWorkflows(client: Client): Promise<Map<string, string>> {
  const runIds = new Map<string, string>();
  for (const scenario of SCENARIOS) {
    const payload = { key: { remoteJid: scenario.chatJid, id: scenario.eventId.slice(0, 8) } };
    const input: DeliverEventInput = {
      eventId: scenario.eventId,
      type: scenario.type,
      chatJid: scenario.chatJid,
      body: JSON.stringify({ type: scenario.type, chat_jid: scenario.chatJid, payload }),
    };
    const handle = await client.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, {
      workflowId: scenario.eventId,
      taskQueue: scenario.ingestStatus === null ? IDLE_TASK_QUEUE : TASK_QUEUE,
      args: [input],
      typedSearchAttributes: [
        { key: WA_EVENT_TYPE, value: scenario.type },
        { key: WA_DELIVERY_STATE, value: 'pending' },
        { key: WA_CHAT_JID, value: scenario.chatJid },
      ],
    });
    runIds.set(scenario.eventId, handle.firstExecutionRunId);
  }
  return runIds;
}

/** Waits until the visibility store answers `query` with at least `count` workflows. */
async function waitForVisibility(client: Client, query: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt += 1) {
    const { count: found } = await client.workflow.count(query);
    if (found >= count) return;
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 500));
  }
  throw new Error(`visibility never showed ${count} workflows for ${query}`);
}

async function capture(page: Page, url: string, waitForText: string, file: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.getByText(waitForText).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1_000);
  await page.screenshot({ path: file });
  process.stdout.write(`wrote ${file}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'docs/images' },
      'cli-path': { type: 'string' },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
      only: { type: 'string' },
    },
  });
  const outDir = resolve(values.out);
  mkdirSync(outDir, { recursive: true });
  if (values.only === 'privacy' || values.only === 'send') {
    const browser = await chromium.launch({ executablePath: values.chromium, args: CHROMIUM_ARGS });
    try {
      const cliPath = resolveTemporalCliPath({ TEMPORAL_CLI_PATH: values['cli-path'] });
      await (values.only === 'privacy' ? capturePrivacyScreenshots : captureSendScreenshot)(browser, cliPath, outDir);
    } finally {
      await browser.close();
    }
    return;
  }

  const temporal = await startTemporalDevServer({
    cliPath: resolveTemporalCliPath({ TEMPORAL_CLI_PATH: values['cli-path'] }),
  });
  const ingest = await startStubIngest();
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: NAMESPACE });
  const workerConnection = await NativeConnection.connect({ address: temporal.address });
  const alertSink: AlertSink = { send: () => Promise.resolve(true) };
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: NAMESPACE,
    taskQueue: TASK_QUEUE,
    workflowsPath: resolveWorkflowsPath(new URL('../worker/workflows-path.ts', import.meta.url).href),
    activities: createActivities({
      webhookUrl: ingest.url,
      webhookSecret: 'screenshot-secret-0123456789',
      httpTimeoutMs: 5_000,
      alertSink,
      client,
      taskQueue: TASK_QUEUE,
      statusWebhookPolicy: { allowHttp: true, allowPrivate: true },
    }),
  });
  const running = worker.run();
  const browser = await chromium.launch({ executablePath: values.chromium, args: CHROMIUM_ARGS });
  try {
    const runIds = await startScenarioWorkflows(client);
    await waitForVisibility(client, `WaDeliveryState = 'auth_blocked'`, 2);
    await waitForVisibility(client, `WaDeliveryState = 'dead_lettered'`, 1);
    await waitForVisibility(client, `ExecutionStatus = 'Completed' AND WorkflowType = 'deliverEvent'`, 3);
    // Let the 503 event collect a few failed attempts, so its pending activity shows the last failure.
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 12_000));

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const base = `${temporal.uiUrl ?? ''}/namespaces/${NAMESPACE}`;
    const list = (query: string): string => `${base}/workflows?query=${encodeURIComponent(query)}`;
    const transient = SCENARIOS.find((s) => s.ingestStatus === 503);
    const rejected = SCENARIOS.find((s) => s.ingestStatus === 422);
    const idle = SCENARIOS.find((s) => s.ingestStatus === null);
    if (!transient || !rejected || !idle) throw new Error('scenario list is incomplete');

    await capture(
      page,
      list(`WaDeliveryState = 'auth_blocked'`),
      SCENARIOS[3]?.eventId ?? '',
      join(outDir, 'ui-auth-blocked.png')
    );
    await capture(
      page,
      list(`WaDeliveryState = 'dead_lettered'`),
      rejected.eventId,
      join(outDir, 'ui-dead-lettered.png')
    );
    await capture(
      page,
      list(`ExecutionStatus = 'Running' AND WaDeliveryState = 'pending'`),
      idle.eventId,
      join(outDir, 'ui-pending.png')
    );
    await capture(page, list(`WaChatJid = '${GROUP_B}'`), transient.eventId, join(outDir, 'ui-by-chat.png'));
    const transientUrl = `${base}/workflows/${transient.eventId}/${runIds.get(transient.eventId) ?? ''}`;
    await capture(
      page,
      `${transientUrl}/pending-activities`,
      'postEventToIngest',
      join(outDir, 'ui-pending-activity.png')
    );
    const rejectedUrl = `${base}/workflows/${rejected.eventId}/${runIds.get(rejected.eventId) ?? ''}`;
    await capture(page, `${rejectedUrl}/history`, 'IngestRejectedError', join(outDir, 'ui-dead-lettered-history.png'));
    await capturePrivacyScreenshots(browser, resolveTemporalCliPath({ TEMPORAL_CLI_PATH: values['cli-path'] }), outDir);
    await captureSendScreenshot(browser, resolveTemporalCliPath({ TEMPORAL_CLI_PATH: values['cli-path'] }), outDir);
  } finally {
    await browser.close();
    worker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    ingest.server.close();
    await temporal.stop();
  }
}

await main();
