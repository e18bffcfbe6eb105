import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { Activities } from '../../../activities/index.js';
import { createSendGateActivities } from '../../../activities/request-dispatch-slot.js';
import { createDispatchActivity } from '../../../collector/send/dispatch-activity.js';
import { deriveWaMessageId } from '../../../common/wa-message-id.js';
import type { sendMessage } from '../../../workflows/send-message.js';
import {
  DISPATCH_START_TO_CLOSE_MS,
  sendAckSignal,
  sendStatusQuery,
  sendWorkflowId,
  sessionTaskQueue,
  type SendMessageInput,
  type SendTransition,
} from '../../../workflows/send-contracts.js';
import { createTestWorker, uniqueTaskQueue } from '../../helpers/temporal-env.js';
import { WhatsAppSendDouble } from '../../helpers/whatsapp-send-double.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();
// ADR 0009: a collector killed between "socket accepted" and "state recorded" does not
// produce a second distinct WhatsApp id. The dispatch worker dies with the send on the wire and its activity
// unfinished; the attempt times out server-side (its heartbeats stop) and a new collector's worker retries with the
// same id.

/** One collector's dispatch worker over the shared socket double (the "WhatsApp" outlives collectors). */
function createSessionWorker(accountId: string, double: WhatsAppSendDouble): Promise<Worker> {
  const dispatch = createDispatchActivity({ getSocket: () => double, rememberSent: () => undefined });
  return createTestWorker({
    connection: harness.env.nativeConnection,
    taskQueue: sessionTaskQueue(accountId),
    activities: dispatch,
    // A killed process does not finish its activity: give up on it at once instead of waiting.
    shutdownGraceTime: '100ms',
    shutdownForceTime: '500ms',
  });
}

describe('sendMessage with a collector killed mid-dispatch (architecture.md §12)', () => {
  it('retries on a new collector with the same WhatsApp id: distinct ids on the wire 1, then sent after the ACK', async () => {
    const taskQueue = uniqueTaskQueue('send-killed');
    const accountId = `acct-${randomUUID().slice(0, 8)}`;
    const double = new WhatsAppSendDouble();
    const reported: SendTransition[] = [];
    const activities: Partial<Activities> = {
      reportSendTransition: (input) => {
        reported.push(input);
        return Promise.resolve();
      },
      sendAlert: () => Promise.resolve({ sent: true }),
      checkSendStart: () => Promise.resolve({ state: null }),
      ...createSendGateActivities({
        client: harness.env.client,
        taskQueue,
        gate: { ratePerMinute: 600, burst: 10, marketingJitterMaxMs: 0 },
      }),
    };
    const worker = await createTestWorker({
      connection: harness.env.nativeConnection,
      taskQueue,
      workflowBundle: harness.bundle,
      activities,
    });
    // The first accepted send never returns: the process "dies" right after the socket took the message.
    let releaseDoomedSend: () => void = () => undefined;
    double.onAccepted = () => new Promise<void>((resolve) => (releaseDoomedSend = resolve));

    await worker.runUntil(async () => {
      const messageId = randomUUID();
      const input: SendMessageInput = {
        messageId,
        accountId,
        toJid: '120363000000000001@g.us',
        text: `reminder ${messageId}`,
        category: 'transactional',
        deliverBy: null,
        waMessageId: deriveWaMessageId(messageId),
        options: { ackWaitMs: 60_000 },
      };
      const handle = await harness.env.client.workflow.start<typeof sendMessage>('sendMessage', {
        taskQueue,
        workflowId: sendWorkflowId(messageId),
        args: [input],
      });

      const doomed = await createSessionWorker(accountId, double);
      const doomedRun = doomed.run().catch(() => undefined);
      await waitUntil(() => double.wire.length === 1);
      doomed.shutdown();
      await doomedRun;
      expect((await handle.query(sendStatusQuery)).state).toBe('queued');

      double.onAccepted = null;
      const successor = await createSessionWorker(accountId, double);
      await successor.runUntil(async () => {
        // The dead attempt is over when its heartbeat timeout (DISPATCH_HEARTBEAT_TIMEOUT_MS, 5 s) passes, not its
        // start-to-close timeout (30 s). The test server does not skip time while an activity is outstanding.
        await waitUntil(() => double.wire.length === 2, { timeoutMs: DISPATCH_START_TO_CLOSE_MS * 3 });
        await waitUntil(() => reported.some((t) => t.state === 'dispatched'));
        await handle.signal(sendAckSignal, { target: handle.workflowId, status: 'sent', at: new Date().toISOString() });
        const result = await handle.result();
        expect(result).toMatchObject({ state: 'sent', dispatchAttempts: 2 });
      });
      // The killed collector's attempt ended by its missing heartbeats (ADR 0017), read from the history.
      const history = await handle.fetchHistory();
      const timeouts = (history.events ?? []).flatMap((event) =>
        event.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo
          ? [event.activityTaskTimedOutEventAttributes.failure.timeoutFailureInfo.timeoutType]
          : []
      );
      expect(timeouts).toEqual([temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT]);
      releaseDoomedSend();
      expect(double.wire.map((send) => send.messageId)).toEqual([input.waMessageId, input.waMessageId]);
      expect(double.distinctIds()).toBe(1);
      expect(reported.map((t) => t.state)).toEqual(['dispatched', 'sent']);
    });
  });
});
