import { ApplicationFailure, log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ALERT_ACTIVITY_OPTIONS } from './activity-options.js';
import { FORGED_INPUT_FAILURE_TYPE, PAYLOAD_REFUSED_ALERT_KIND } from './contracts.js';

const { sendAlert } = proxyLocalActivities<Activities>(ALERT_ACTIVITY_OPTIONS);

/**
 * Ends a run whose input names another workflow (ADR 0026: an encrypted input copied to a workflow id of the
 * copier's choice): one `payload_refused` alert naming the workflow, then the non-retryable
 * `ForgedInputError`, before the run has done anything. Workflow code.
 *
 * @param expectedWorkflowId - the workflow id the input names (`event_id`, `send-<message_id>`, the webhook-id).
 * @throws ApplicationFailure `ForgedInputError`, always.
 */
export async function refuseInputOfAnotherWorkflow(expectedWorkflowId: string): Promise<never> {
  const { workflowId, workflowType } = workflowInfo();
  log.error('input names another workflow: refused', { workflowId, expectedWorkflowId });
  await sendAlert({
    kind: PAYLOAD_REFUSED_ALERT_KIND,
    severity: 'error',
    message:
      `Workflow ${workflowId} (${workflowType}) was started with the input of ${expectedWorkflowId}: a copied ` +
      'payload, so it does nothing and fails (docs/runbook.md, "Securing Temporal").',
    details: { workflowId, reason: 'input_of_another_workflow', expectedWorkflowId },
  });
  throw ApplicationFailure.nonRetryable(
    `input belongs to workflow ${expectedWorkflowId}, not ${workflowId}`,
    FORGED_INPUT_FAILURE_TYPE
  );
}

/**
 * Whether a state-changing signal arrived without its argument (ADR 0026: a signal with no argument carries no
 * payload, so the codec cannot refuse it). When it did, raises one `payload_refused` alert naming the workflow
 * and the signal; the caller ignores the call. Workflow code, for signal handlers.
 */
export function isSignalArgumentMissing(signalName: string, argument: unknown): boolean {
  if (argument !== undefined && argument !== null && typeof argument === 'object') return false;
  const { workflowId } = workflowInfo();
  log.error('signal without its argument: ignored', { workflowId, signalName });
  void sendAlert({
    kind: PAYLOAD_REFUSED_ALERT_KIND,
    severity: 'error',
    message:
      `Workflow ${workflowId} received signal ${signalName} without its encrypted argument: ignored. If no ` +
      'wa-lake process sent it, it is forged (docs/runbook.md, "Securing Temporal").',
    details: { workflowId, reason: 'signal_without_argument', signalName },
  });
  return true;
}
