import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Alert } from '../common/alert-sink.js';
import type { AlertWindowClaim, AlertWindowLedger } from '../common/alert-window-ledger.js';
import { readHeldWorkflowStart } from '../common/held-workflow-start.js';
import {
  ALERT_WINDOW_WORKFLOW_TYPE,
  PAYLOAD_REFUSED_ALERT_KIND,
  alertWindowWorkflowId,
  type AlertWindowInput,
} from '../workflows/contracts.js';

/** Why the workflow holding a window id is no window a key holder started (ADR 0026 §7); null when it is one. */
async function squatReasonOf(client: Client, workflowId: string): Promise<string | null> {
  const held = await readHeldWorkflowStart(client, workflowId);
  if (held.workflowType !== ALERT_WINDOW_WORKFLOW_TYPE) return 'not_alert_window';
  if (!held.isDecryptable) return 'not_decryptable';
  const input = held.input as Partial<AlertWindowInput> | undefined;
  return input?.workflowId === workflowId ? null : 'other_window';
}

/**
 * The workers' {@link AlertWindowLedger}: a claim starts the `alertWindow` workflow of the kind
 * (id {@link alertWindowWorkflowId}, execution timeout = the window, its encrypted input bound to the id).
 * Temporal refuses a second start while that run is open, whichever worker or restart asks, so exactly one claim
 * wins per window. The window survives worker restarts and a Temporal restart on the same database.
 *
 * A run holding the id that no key holder started (its input does not decrypt or names another id: someone
 * with access to the frontend pre-started it to silence the kind, ADR 0026 §7) is terminated and the window
 * claimed anew; the claim then carries one `payload_refused` alert naming it for the caller to send.
 *
 * @throws client errors other than "already started" (Temporal unreachable): the ledgered sink then
 *   sends without dedup.
 */
export function createTemporalAlertLedger(deps: { client: Client; taskQueue: string }): AlertWindowLedger {
  const start = async (workflowId: string, windowMs: number): Promise<void> => {
    const input: AlertWindowInput = { windowMs, workflowId };
    await deps.client.workflow.start(ALERT_WINDOW_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [input],
      workflowExecutionTimeout: windowMs,
    });
  };
  const held = async (workflowId: string, windowMs: number): Promise<AlertWindowClaim> => {
    const { startTime } = await deps.client.workflow.getHandle(workflowId).describe();
    return { isClaimed: false, heldUntilMs: startTime.getTime() + windowMs };
  };
  return {
    async claim(kind: string, windowMs: number): Promise<AlertWindowClaim> {
      const workflowId = alertWindowWorkflowId(deps.taskQueue, kind);
      try {
        await start(workflowId, windowMs);
        return { isClaimed: true };
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      const reason = await squatReasonOf(deps.client, workflowId);
      if (reason === null) return held(workflowId, windowMs);
      await deps.client.workflow
        .getHandle(workflowId)
        .terminate(`squatted alert window (${reason}), replaced by a key holder`)
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
      try {
        await start(workflowId, windowMs);
      } catch (err) {
        // Another worker replaced it first: that one sends the alert.
        if (err instanceof WorkflowExecutionAlreadyStartedError) return held(workflowId, windowMs);
        throw err;
      }
      const squatAlert: Alert = {
        kind: PAYLOAD_REFUSED_ALERT_KIND,
        severity: 'error',
        message:
          `Workflow ${workflowId} held the alert window of ${kind} without a key holder's input (${reason}): ` +
          'terminated and replaced, so the alerts it silenced are sent again (docs/runbook.md, "Securing Temporal").',
        details: { workflowId, reason: 'alert_window_squatted', squatReason: reason, kind },
      };
      return { isClaimed: true, squatAlert };
    },
  };
}
