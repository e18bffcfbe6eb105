import {
  ApplicationFailure,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ALERT_ACTIVITY_OPTIONS, BOOKKEEPING_ACTIVITY_OPTIONS } from './activity-options.js';
import { FORGED_INPUT_FAILURE_TYPE, PAYLOAD_REFUSED_ALERT_KIND } from './contracts.js';

const { checkSendStart } = proxyActivities<Activities>(BOOKKEEPING_ACTIVITY_OPTIONS);
const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

/**
 * The patch id of the start check (ADR 0026 §6): runs started before it replay without the check. The id must
 * never change.
 */
const SEND_START_ONCE_PATCH = 'send-start-once';

/**
 * Ends a `sendMessage` run whose message is already past `queued` in the lake (ADR 0026 §6): a finished run
 * re-started under its own id with its own copied encrypted input. One `payload_refused` alert naming the workflow,
 * then the non-retryable `ForgedInputError`, before anything is dispatched. A message the lake does not know
 * (a run started without the send API) goes on. Workflow code.
 *
 * @throws ApplicationFailure `ForgedInputError` when the message is past `queued`.
 */
export async function refuseUnlessFirstStart(messageId: string): Promise<void> {
  if (!patched(SEND_START_ONCE_PATCH)) return;
  const { state } = await checkSendStart({ messageId });
  if (state === null || state === 'queued') return;
  const { workflowId, workflowType } = workflowInfo();
  log.error('input already used: refused', { workflowId, state });
  await sendAlert({
    kind: PAYLOAD_REFUSED_ALERT_KIND,
    severity: 'error',
    message:
      `Workflow ${workflowId} (${workflowType}) was started again with the input of a message already ${state}: ` +
      'a copied payload, so it sends nothing and fails (docs/runbook.md, "Securing Temporal").',
    details: { workflowId, reason: 'input_already_used', state },
  });
  throw ApplicationFailure.nonRetryable(`message ${messageId} is already ${state}`, FORGED_INPUT_FAILURE_TYPE);
}
