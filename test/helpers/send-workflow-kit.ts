import { randomUUID } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activities } from '../../activities/index.js';
import { createSendGateActivities, type SendGateSettings } from '../../activities/request-dispatch-slot.js';
import { createDispatchActivity } from '../../collector/send/dispatch-activity.js';
import type { Alert } from '../../common/alert-sink.js';
import { deriveWaMessageId } from '../../common/wa-message-id.js';
import type { sendMessage } from '../../workflows/send-message.js';
import type {
  DispatchWhatsAppMessageInput,
  SendMessageInput,
  SendMessageOptions,
  SendTransition,
} from '../../workflows/send-contracts.js';
import { sendWorkflowId, sessionTaskQueue } from '../../workflows/send-contracts.js';
import { createTestWorker, uniqueTaskQueue } from './temporal-env.js';
import { WhatsAppSendDouble } from './whatsapp-send-double.js';

/** Two workers (normal queue + the account's session queue) around a socket double, for one test. */
export interface SendKit {
  taskQueue: string;
  accountId: string;
  double: WhatsAppSendDouble;
  /** Whether the double is reachable (false = session not open). */
  isOpen: { value: boolean };
  alerts: Alert[];
  reported: Array<SendTransition & { messageId: string }>;
  /** Inputs of every dispatch attempt that reached the session worker (with the gate's grant time). */
  dispatched: DispatchWhatsAppMessageInput[];
  /** Runs `fn` while both workers poll. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` with only the normal worker: no collector polls the session queue (collector down). */
  runWithoutCollector<T>(fn: () => Promise<T>): Promise<T>;
  newInput(overrides?: Partial<SendMessageInput> & { options?: SendMessageOptions }): SendMessageInput;
}

/**
 * Builds a kit: stub `reportSendTransition`/`sendAlert` (recorded), the real gate activities on
 * `env.client`, and the real collector dispatch activity over a {@link WhatsAppSendDouble}.
 */
export async function createSendKit(
  env: Pick<TestWorkflowEnvironment, 'client' | 'nativeConnection'>,
  bundle: WorkflowBundleWithSourceMap,
  options: {
    gate?: SendGateSettings;
    sendTimeoutMs?: number;
    accountId?: string;
    taskQueue?: string;
    /** Real activities added to (or replacing) the stubs, e.g. status webhooks and the dead-letter signal. */
    activities?: Partial<Activities>;
  } = {}
): Promise<SendKit> {
  const taskQueue = options.taskQueue ?? uniqueTaskQueue('send');
  const accountId = options.accountId ?? `acct-${randomUUID().slice(0, 8)}`;
  const double = new WhatsAppSendDouble();
  const isOpen = { value: true };
  const alerts: Alert[] = [];
  const reported: SendKit['reported'] = [];
  const gate = options.gate ?? { ratePerMinute: 600, burst: 10, marketingJitterMaxMs: 0 };
  const activities: Partial<Activities> = {
    reportSendTransition: (input) => {
      reported.push(input);
      return Promise.resolve();
    },
    // The lake does not know the kit's messages (ADR 0026 §6: such a run goes on).
    checkSendStart: () => Promise.resolve({ state: null }),
    sendAlert: (alert) => {
      alerts.push(alert);
      return Promise.resolve({ sent: true });
    },
    ...createSendGateActivities({ client: env.client, taskQueue, gate }),
    ...options.activities,
  };
  const worker = await createTestWorker({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  const sent = new Map<string, string>();
  const dispatched: DispatchWhatsAppMessageInput[] = [];
  const dispatch = createDispatchActivity({
    getSocket: () => (isOpen.value ? double : null),
    rememberSent: (waMessageId, messageId) => sent.set(waMessageId, messageId),
    sendTimeoutMs: options.sendTimeoutMs ?? 2_000,
  });
  const sessionWorker = await createTestWorker({
    connection: env.nativeConnection,
    taskQueue: sessionTaskQueue(accountId),
    activities: {
      dispatchWhatsAppMessage: (input: Parameters<typeof dispatch.dispatchWhatsAppMessage>[0]) => {
        dispatched.push(input);
        return dispatch.dispatchWhatsAppMessage(input);
      },
    },
  });
  return {
    taskQueue,
    accountId,
    double,
    isOpen,
    alerts,
    reported,
    dispatched,
    run: (fn) => sessionWorker.runUntil(worker.runUntil(fn)),
    // The session worker is started and shut down first: a never-run worker keeps its hold on the connection.
    runWithoutCollector: async (fn) => {
      await sessionWorker.runUntil(Promise.resolve());
      return worker.runUntil(fn);
    },
    newInput: (overrides = {}) => {
      const messageId = randomUUID();
      return {
        messageId,
        accountId,
        toJid: '120363000000000001@g.us',
        text: `hello ${messageId}`,
        category: 'transactional',
        deliverBy: null,
        waMessageId: deriveWaMessageId(messageId),
        ...overrides,
      };
    },
  };
}

/** Starts `sendMessage` for `input` on the kit's queue. */
export function startSend(
  env: TestWorkflowEnvironment,
  kit: SendKit,
  input: SendMessageInput
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof sendMessage>> {
  return env.client.workflow.start<typeof sendMessage>('sendMessage', {
    taskQueue: kit.taskQueue,
    workflowId: sendWorkflowId(input.messageId),
    args: [input],
  });
}
