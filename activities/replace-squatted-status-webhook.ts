import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { readHeldWorkflowStart } from '../common/held-workflow-start.js';
import {
  DELIVER_SEND_STATUS_WORKFLOW_TYPE,
  sendStatusWebhookId,
  type SendStatusDeliveryInput,
} from '../workflows/send-contracts.js';

/** Input of `replaceSquattedStatusWebhook`: the webhook-id whose start was refused as already started. */
export interface StatusWebhookHolderCheck {
  workflowId: string;
}

/** What `replaceSquattedStatusWebhook` found: the genuine delivery, or a squatter it terminated and why. */
export interface StatusWebhookHolderOutcome {
  isReplaced: boolean;
  /** `not_deliver_send_status`, `not_decryptable`, `other_change`; null when genuine. */
  reason: string | null;
}

/**
 * Builds the `replaceSquattedStatusWebhook` activity (ADR 0026 §7): decides whether the workflow holding a
 * `deliverSendStatus` webhook-id (`send-status-<message_id>-<state>`) was started by a key holder, like the
 * collector's event-id squat check (ADR 0022): a `deliverSendStatus` whose input decrypts with the worker's codec
 * and names this webhook-id. A squatter (pre-started by someone with frontend access, so that `sendMessage`'s start
 * comes back "already started" and the genuine webhook is never posted) is terminated, so the caller starts the
 * genuine delivery anew.
 *
 * @throws client errors other than "not found" (Temporal unreachable): retried by the activity's policy.
 */
export function createReplaceSquattedStatusWebhook(deps: {
  client: Client;
}): (check: StatusWebhookHolderCheck) => Promise<StatusWebhookHolderOutcome> {
  return async function replaceSquattedStatusWebhook(check) {
    const held = await readHeldWorkflowStart(deps.client, check.workflowId);
    const input = held.input as Partial<SendStatusDeliveryInput> | undefined;
    let reason: string | null = null;
    if (held.workflowType !== DELIVER_SEND_STATUS_WORKFLOW_TYPE) reason = 'not_deliver_send_status';
    else if (!held.isDecryptable) reason = 'not_decryptable';
    else if (
      !input?.messageId ||
      !input.state ||
      sendStatusWebhookId(input.messageId, input.state) !== check.workflowId
    )
      reason = 'other_change';
    if (reason === null) return { isReplaced: false, reason };
    await deps.client.workflow
      .getHandle(check.workflowId)
      .terminate(`squatted status webhook id (${reason}), replaced by a key holder`)
      .catch((err: unknown) => {
        // Already closed: nothing to end; the genuine start may reuse the id.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
    return { isReplaced: true, reason };
  };
}
