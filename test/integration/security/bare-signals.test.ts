import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../../common/alert-sink.js';
import { PAYLOAD_REFUSED_ALERT_KIND } from '../../../worker/refused-payload-alerter.js';
import { runWorker, type RunningWorker } from '../../../worker/run-worker.js';
import {
  SEND_GATE_WORKFLOW_TYPE,
  sendGateStatusQuery,
  sendGateWorkflowId,
  type SendGateInput,
} from '../../../workflows/send-contracts.js';
import { runCli } from '../../helpers/run-cli.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import {
  bundleWorkflows,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  testWorkerConfig,
  uniqueTaskQueue,
} from '../../helpers/temporal-env.js';

// ADR 0026: a signal with no argument carries no payload, so the codec has nothing to refuse. Every signal that
// changes state takes an (encrypted) argument, and a call without one is ignored with one alert: a bare
// `temporal workflow signal --name resumeSending` no longer resumes an account an operator paused.
let temporal: DevTemporal;
let worker: RunningWorker;
let forger: Client;
const alerts: Alert[] = [];
const taskQueue = uniqueTaskQueue('bare-signals');
const accountId = `acct-${randomUUID().slice(0, 8)}`;
const cliEnv = (): Record<string, string> => ({
  TEMPORAL_ADDRESS: temporal.server.address,
  TEMPORAL_TASK_QUEUE: taskQueue,
  PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
});

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startDevTemporal(), bundleWorkflows()]);
  temporal = started;
  // Whoever reaches Temporal without the key, like the `temporal` CLI.
  forger = new Client({ connection: temporal.client.connection, namespace: 'default' });
  worker = await runWorker({
    config: testWorkerConfig({
      TEMPORAL_ADDRESS: temporal.server.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      WEBHOOK_URL: 'http://127.0.0.1:1/api/webhooks/whatsapp',
    }),
    logger: silentLogger(),
    workflowBundle: bundle,
    alertSink: { send: (alert) => Promise.resolve(alerts.push(alert) > 0) },
  });
  const input: SendGateInput = { accountId, ratePerMinute: 60, burst: 1, marketingJitterMaxMs: 0 };
  await temporal.client.workflow.start(SEND_GATE_WORKFLOW_TYPE, {
    taskQueue,
    workflowId: sendGateWorkflowId(accountId),
    args: [input],
  });
}, 120_000);
afterAll(async () => {
  await temporal?.client.workflow
    .getHandle(sendGateWorkflowId(accountId))
    .terminate('test over')
    .catch(() => undefined);
  await worker?.stop();
  await temporal?.close();
});

const isPaused = async (): Promise<boolean> =>
  (await temporal.client.workflow.getHandle(sendGateWorkflowId(accountId)).query(sendGateStatusQuery)).paused;

describe('signals without their argument (ADR 0026)', () => {
  it('a bare resumeSending leaves an operator pause in place and raises one alert; the CLI still resumes', async () => {
    const pause = await runCli(['sending', 'pause', '--account', accountId], { env: cliEnv() });
    expect({ code: pause.code, stderr: pause.stderr }).toEqual({ code: 0, stderr: '' });
    await expect.poll(isPaused, { timeout: 60_000 }).toBe(true);

    const gateId = sendGateWorkflowId(accountId);
    await forger.workflow.getHandle(gateId).signal('resumeSending');
    const refusals = (): Alert[] =>
      alerts.filter((alert) => alert.kind === PAYLOAD_REFUSED_ALERT_KIND && alert.details?.['workflowId'] === gateId);
    await expect.poll(() => refusals().length, { timeout: 60_000 }).toBe(1);
    expect(refusals()[0]?.details).toMatchObject({ signalName: 'resumeSending', reason: 'signal_without_argument' });
    expect(await isPaused()).toBe(true);

    const resume = await runCli(['sending', 'resume', '--account', accountId], { env: cliEnv() });
    expect({ code: resume.code, stderr: resume.stderr }).toEqual({ code: 0, stderr: '' });
    await expect.poll(isPaused, { timeout: 60_000 }).toBe(false);
    expect(refusals()).toHaveLength(1);
  }, 180_000);
});
