import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, WorkflowIdReusePolicy, startChild } from '@temporalio/workflow';
import { WA_DELIVERY_STATE } from './contracts.js';
import {
  DELIVER_SEND_STATUS_WORKFLOW_TYPE,
  WA_SEND_STATE,
  sendStatusWebhookId,
  type SendStatusDeliveryInput,
  type SendTransition,
} from './send-contracts.js';

/** What `sendMessage` uses to tell the caller about its states (workflow code: deterministic). */
export interface StatusWebhookNotifier {
  /** Starts the `deliverSendStatus` child of one state; returns at once. */
  notify(transition: SendTransition, sequence: number): void;
  /** Resolves once every child started so far exists (rejects on an unexpected start failure). */
  settle(): Promise<void>;
}

/**
 * Status webhooks of one message (ADR 0011): one abandoned `deliverSendStatus` child per
 * state, workflow id = `webhook-id`, started without waiting, so a slow or broken receiver never holds up
 * sending or ACK handling and the child outlives its parent. With `isEnabled` false (keys without a
 * webhook, and every history written before) it issues no command at all.
 */
export function createStatusWebhookNotifier(messageId: string, isEnabled: boolean): StatusWebhookNotifier {
  const starts: Array<Promise<void>> = [];
  return {
    notify(transition, sequence) {
      if (!isEnabled) return;
      const change: SendStatusDeliveryInput = { messageId, ...transition, sequence };
      const started = startChild(DELIVER_SEND_STATUS_WORKFLOW_TYPE, {
        workflowId: sendStatusWebhookId(messageId, transition.state),
        args: [change],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        // Findable like lake deliveries (ADR 0017): the state it announces, and where its delivery stands. Set at
        // the start, so they cost no history event; the child moves `WaDeliveryState` on only when blocked.
        typedSearchAttributes: [
          { key: WA_SEND_STATE, value: transition.state },
          { key: WA_DELIVERY_STATE, value: 'delivering' },
        ],
      });
      // Already started (this run was reset): that child owns the delivery; never a second webhook-id.
      starts.push(
        started.then(
          () => undefined,
          (err: unknown) => {
            if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          }
        )
      );
    },
    async settle() {
      await Promise.all(starts);
    },
  };
}
