import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import {
  sendAckSignal,
  sendStatusWebhookId,
  sendWorkflowId,
  type SendMessageInput,
  type SendMessageResult,
} from '../../workflows/send-contracts.js';
import { historyJson } from './temporal-histories.js';
import { waitUntil } from './wait-until.js';
import { createSendKit, startSend, type SendKit } from './send-workflow-kit.js';

const DAY_MS = 24 * 60 * 60_000;
const NOT_ON_WHATSAPP_JID = '5511999990003@s.whatsapp.net';

/** Polls `check` every 50 ms, up to 30 s (real time: the time-skipping server only skips while a result is awaited). */
/** One `sendMessage` path: how to run it on a kit whose workers poll; resolves with the run's result. */
type SendPath = (env: TestWorkflowEnvironment, kit: SendKit, input: SendMessageInput) => Promise<SendMessageResult>;

/** Signals each ACK once the socket double has put the message on the wire, then waits for the result. */
function ackedPath(...acks: Array<'sent' | 'delivered' | 'read'>): SendPath {
  return async (env, kit, input) => {
    const handle = await startSend(env, kit, input);
    await waitUntil(() => kit.double.wire.some((send) => send.messageId === input.waMessageId));
    for (const status of acks)
      await handle.signal(sendAckSignal, { target: handle.workflowId, status, at: new Date().toISOString() });
    return handle.result();
  };
}

const resultOf: SendPath = async (env, kit, input) => (await startSend(env, kit, input)).result();

/**
 * The recorded `sendMessage` paths (ADR 0009, architecture.md §12): the input each one starts with, how it
 * is driven, and the state it must end in (a recording that ends elsewhere is refused, so a fixture always
 * shows the path its name says).
 */
const SEND_PATHS: Record<
  string,
  {
    input: (kit: SendKit, nowMs: number) => SendMessageInput;
    drive: SendPath;
    expected: SendMessageResult['state'];
    setUp?: (kit: SendKit) => void;
  }
> = {
  // deliver_by a day away: the dispatch is bounded by it, so the patch marker and the deadline timer are recorded.
  'send-message-sent-after-one-ack': {
    input: (kit, nowMs) =>
      kit.newInput({ deliverBy: new Date(nowMs + DAY_MS).toISOString(), options: { ackWaitMs: 60_000 } }),
    drive: ackedPath('sent'),
    expected: 'sent',
  },
  'send-message-failed-not-on-whatsapp': {
    input: (kit) => kit.newInput({ toJid: NOT_ON_WHATSAPP_JID }),
    drive: resultOf,
    expected: 'failed',
  },
  // The session is down: every attempt fails "not connected" and backs off until deliver_by passes.
  'send-message-expired-session-down': {
    input: (kit, nowMs) => kit.newInput({ deliverBy: new Date(nowMs + 10 * 60_000).toISOString() }),
    setUp: (kit) => {
      kit.isOpen.value = false;
    },
    drive: resultOf,
    expected: 'expired',
  },
  'send-message-expired-before-grant': {
    input: (kit, nowMs) => kit.newInput({ deliverBy: new Date(nowMs - 60_000).toISOString() }),
    drive: resultOf,
    expected: 'expired',
  },
  // One deliverSendStatus child per state reached (queued, dispatched, sent, delivered, read).
  'send-message-status-webhook-read': {
    input: (kit) => kit.newInput({ statusWebhook: true }),
    drive: ackedPath('sent', 'delivered', 'read'),
    expected: 'read',
  },
};

/** Names of the fixtures {@link recordSendHistories} writes, sorted. */
export const SEND_HISTORY_NAMES = [...Object.keys(SEND_PATHS), 'deliver-send-status-delivered'].sort();

/**
 * Re-records the `sendMessage` replay fixtures (`RECORD_HISTORIES=true|send`): runs each path of
 * {@link SEND_PATHS} on the time-skipping server through the real gate and the collector's dispatch
 * activity over a socket double, and writes each history to `<dir>/<name>.json`, plus the history of one
 * `deliverSendStatus` child (its webhook answered 200 by a stub activity). Histories are stored as the test
 * client writes them: payloads encrypted with `TEST_PAYLOAD_ENCRYPTION_KEYS`.
 *
 * @throws Error when a path ends in another state than the one its name says.
 */
export async function recordSendHistories(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  dir: string
): Promise<void> {
  const kit = await createSendKit(env, bundle, {
    activities: { postSendStatusWebhook: () => Promise.resolve({ status: 200, outcome: 'delivered' }) },
  });
  kit.double.notOnWhatsApp.add(NOT_ON_WHATSAPP_JID);
  await kit.run(async () => {
    for (const [name, path] of Object.entries(SEND_PATHS)) {
      kit.isOpen.value = true;
      path.setUp?.(kit);
      const input = path.input(kit, await env.currentTimeMs());
      const result = await path.drive(env, kit, input);
      if (result.state !== path.expected)
        throw new Error(`${name} ended ${result.state}, not ${path.expected}: not recorded`);
      writeFileSync(join(dir, `${name}.json`), await historyJson(env, sendWorkflowId(input.messageId)));
      if (input.statusWebhook) {
        const childId = sendStatusWebhookId(input.messageId, 'sent');
        await env.client.workflow.getHandle(childId).result();
        writeFileSync(join(dir, 'deliver-send-status-delivered.json'), await historyJson(env, childId));
      }
    }
  });
}
