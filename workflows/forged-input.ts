import {
  ApplicationFailure,
  log,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  type SignalDefinition,
} from '@temporalio/workflow';
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
 * Ends the run through {@link refuseInputOfAnotherWorkflow} unless it runs under `expectedWorkflowId`, the id its
 * input names (ADR 0026); a run under its own id goes on without a command. Workflow code.
 */
export async function refuseUnlessWorkflowIs(expectedWorkflowId: string | undefined): Promise<void> {
  // No id: a start without an input carries no payload, so the codec had nothing to refuse.
  const expected = expectedWorkflowId ?? '(no input)';
  if (workflowInfo().workflowId !== expected) await refuseInputOfAnotherWorkflow(expected);
}

/**
 * The input a workflow was started with, or undefined when it was started without one (`temporal workflow start`
 * with no `--input`), for {@link refuseUnlessWorkflowIs}. Workflow code.
 */
export function startedInput<Input>(input: Input): Input | undefined {
  return input;
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

/**
 * `setHandler` for a state-changing signal of one argument (ADR 0026): a call without its argument is ignored
 * with one alert ({@link isSignalArgumentMissing}); every other call reaches `handler`. Workflow code.
 */
export function setArgumentRequiredHandler<Arg>(signal: SignalDefinition<[Arg]>, handler: (arg: Arg) => void): void {
  setHandler(signal, (arg: Arg) => {
    if (!isSignalArgumentMissing(signal.name, arg)) handler(arg);
  });
}

/**
 * The patch id under which a state-changing signal whose argument names another workflow is ignored (ADR 0026
 * §4). Asked only for such a signal, so a genuine history gets no marker; histories written before the binding
 * (arguments without `target`) replay as before. The id must never change.
 */
const SIGNAL_BOUND_TO_TARGET_PATCH = 'signal-bound-to-target';

/**
 * Raises one `payload_refused` alert naming this workflow and the refused signal (workflow code; the caller
 * ignores the call). `reason` says why: `signal_for_another_workflow`, `control_signal_replayed`, ….
 */
export function alertRefusedSignal(signalName: string, reason: string, details: Record<string, unknown> = {}): void {
  const { workflowId } = workflowInfo();
  log.error('signal refused: ignored', { workflowId, signalName, reason });
  void sendAlert({
    kind: PAYLOAD_REFUSED_ALERT_KIND,
    severity: 'error',
    message:
      `Workflow ${workflowId} received signal ${signalName} with an argument it refuses (${reason}): ignored. ` +
      'A copied or replayed signal is forged (docs/runbook.md, "Securing Temporal").',
    details: { ...details, workflowId, reason, signalName },
  });
}

/**
 * Whether a state-changing signal's argument is bound to another workflow (ADR 0026 §4: the sender puts the
 * target workflow id inside the encrypted argument). When it is, raises one `payload_refused` alert; the caller
 * ignores the call. An argument without a target in a history written before the binding is accepted (replay).
 */
export function isSignalForAnotherWorkflow(signalName: string, target: string | undefined): boolean {
  if (target === workflowInfo().workflowId) return false;
  if (!patched(SIGNAL_BOUND_TO_TARGET_PATCH)) return false;
  alertRefusedSignal(signalName, 'signal_for_another_workflow', { target: target ?? null });
  return true;
}

/**
 * `setHandler` for a state-changing signal whose argument is bound to its target (ADR 0026 §2, §4): a call
 * without its argument, or with one bound to another workflow, is ignored with one alert. Workflow code.
 */
export function setBoundSignalHandler<Arg extends { target?: string }>(
  signal: SignalDefinition<[Arg]>,
  handler: (arg: Arg) => void
): void {
  setHandler(signal, (arg: Arg) => {
    if (isSignalArgumentMissing(signal.name, arg)) return;
    if (isSignalForAnotherWorkflow(signal.name, arg.target)) return;
    handler(arg);
  });
}
