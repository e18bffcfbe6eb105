import type { Client } from '@temporalio/client';
import { stampControlSignal } from '../common/control-signal-stamp.js';
import {
  SEND_GATE_WORKFLOW_TYPE,
  pauseSendingSignal,
  requestDispatchSignal,
  sendGateWorkflowId,
  type DispatchRequest,
  type SendGateInput,
} from '../workflows/send-contracts.js';

/** Rate settings of every account's gate (`SEND_RATE_PER_MINUTE`, `SEND_RATE_BURST`, `SEND_MARKETING_JITTER_MAX_MS`). */
export interface SendGateSettings {
  ratePerMinute: number;
  burst: number;
  marketingJitterMaxMs: number;
  /** Least time between two grants to one recipient (`SEND_RECIPIENT_INTERVAL_MS`, ADR 0015); 0 = none. */
  perRecipientIntervalMs?: number;
}

/**
 * Builds `requestDispatchSlot` and `pauseAccountSending`: signal-with-start of the account's `sendGate`
 * workflow (`send-gate-<account>`, on the worker's task queue), which grants dispatch slots by priority
 * within the token bucket (architecture.md §12). Signal-with-start makes the first message of an account start it.
 */
export function createSendGateActivities(deps: { client: Client; taskQueue: string; gate: SendGateSettings }): {
  requestDispatchSlot(input: { accountId: string; request: DispatchRequest }): Promise<void>;
  pauseAccountSending(input: { accountId: string; reason: string }): Promise<void>;
} {
  const startOptions = (accountId: string): { taskQueue: string; workflowId: string; args: [SendGateInput] } => ({
    taskQueue: deps.taskQueue,
    workflowId: sendGateWorkflowId(accountId),
    args: [{ accountId, ...deps.gate }],
  });
  return {
    async requestDispatchSlot(input): Promise<void> {
      await deps.client.workflow.signalWithStart(SEND_GATE_WORKFLOW_TYPE, {
        ...startOptions(input.accountId),
        signal: requestDispatchSignal,
        signalArgs: [input.request],
      });
    },
    async pauseAccountSending(input): Promise<void> {
      await deps.client.workflow.signalWithStart(SEND_GATE_WORKFLOW_TYPE, {
        ...startOptions(input.accountId),
        signal: pauseSendingSignal,
        signalArgs: [{ reason: input.reason, ...stampControlSignal(sendGateWorkflowId(input.accountId)) }],
      });
    },
  };
}
