import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ALERT_ACTIVITY_OPTIONS, BOOKKEEPING_ACTIVITY_OPTIONS } from './activity-options.js';
import { PAYLOAD_REFUSED_ALERT_KIND, WA_DELIVERY_STATE } from './contracts.js';
import {
  DELIVER_SEND_STATUS_WORKFLOW_TYPE,
  WA_SEND_STATE,
  sendStatusWebhookId,
  type SendStatusDeliveryInput,
  type SendTransition,
} from './send-contracts.js';

const { replaceSquattedStatusWebhook } = proxyActivities<Activities>(BOOKKEEPING_ACTIVITY_OPTIONS);
const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

/**
 * The patch id of the squat check on an "already started" webhook-id (ADR 0026 §7); histories written before it
 * took "already started" as done. The id must never change.
 */
const STATUS_WEBHOOK_SQUAT_CHECK_PATCH = 'status-webhook-squat-check';

/** What `sendMessage` uses to tell the caller about its states (workflow code: deterministic). */
export interface StatusWebhookNotifier {
  /** Starts the `deliverSendStatus` child of one state; returns at once. */
  notify(transition: SendTransition, sequence: number): void;
  /** Resolves once every child started so far exists (rejects on an unexpected start failure). */
  settle(): Promise<void>;
}

async function startStatusChild(change: SendStatusDeliveryInput, reusePolicy: WorkflowIdReusePolicy): Promise<void> {
  await startChild(DELIVER_SEND_STATUS_WORKFLOW_TYPE, {
    workflowId: sendStatusWebhookId(change.messageId, change.state),
    args: [change],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: reusePolicy,
    // Findable like lake deliveries (ADR 0017): the state it announces, and where its delivery stands. Set at
    // the start, so they cost no history event; the child moves `WaDeliveryState` on only when blocked.
    typedSearchAttributes: [
      { key: WA_SEND_STATE, value: change.state },
      { key: WA_DELIVERY_STATE, value: 'delivering' },
    ],
  });
}

/**
 * The webhook-id is held already (ADR 0026 §7): by this message's own child (this run was reset), which owns the
 * delivery, or by a squatter no key holder started, which the activity terminates; then one `payload_refused`
 * alert naming it, and the genuine child is started anew.
 */
async function replaceSquatter(change: SendStatusDeliveryInput): Promise<void> {
  if (!patched(STATUS_WEBHOOK_SQUAT_CHECK_PATCH)) return;
  const workflowId = sendStatusWebhookId(change.messageId, change.state);
  const outcome = await replaceSquattedStatusWebhook({ workflowId });
  if (!outcome.isReplaced) return;
  log.error('status webhook id squatted: replaced', { workflowId, reason: outcome.reason });
  await sendAlert({
    kind: PAYLOAD_REFUSED_ALERT_KIND,
    severity: 'error',
    message:
      `Workflow ${workflowId} held a status webhook id without a key holder's input (${outcome.reason ?? ''}): ` +
      'terminated, and the genuine webhook started anew (docs/runbook.md, "Securing Temporal").',
    details: { workflowId, reason: 'status_webhook_squatted', squatReason: outcome.reason },
  });
  await startStatusChild(change, WorkflowIdReusePolicy.ALLOW_DUPLICATE);
}

/**
 * Status webhooks of one message (ADR 0011): one abandoned `deliverSendStatus` child per
 * state, workflow id = `webhook-id`, started without waiting, so a slow or broken receiver never holds up
 * sending or ACK handling and the child outlives its parent. An id held by a workflow no key holder started is
 * taken back (ADR 0026 §7). With `isEnabled` false (keys without a webhook, and every history written before) it
 * issues no command at all.
 */
export function createStatusWebhookNotifier(messageId: string, isEnabled: boolean): StatusWebhookNotifier {
  const starts: Array<Promise<void>> = [];
  return {
    notify(transition, sequence) {
      if (!isEnabled) return;
      const change: SendStatusDeliveryInput = { messageId, ...transition, sequence };
      const started = startStatusChild(change, WorkflowIdReusePolicy.REJECT_DUPLICATE);
      starts.push(
        started.catch((err: unknown) => {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          return replaceSquatter(change);
        })
      );
    },
    async settle() {
      await Promise.all(starts);
    },
  };
}
