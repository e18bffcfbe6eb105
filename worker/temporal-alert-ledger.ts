import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { AlertWindowClaim, AlertWindowLedger } from '../common/alert-window-ledger.js';
import { ALERT_WINDOW_WORKFLOW_TYPE, alertWindowWorkflowId, type AlertWindowInput } from '../workflows/contracts.js';

/**
 * The workers' {@link AlertWindowLedger}: a claim starts the `alertWindow` workflow of the kind
 * (id {@link alertWindowWorkflowId}, execution timeout = the window). Temporal refuses a second start
 * while that run is open, whichever worker or restart asks, so exactly one claim wins per window.
 * The window survives worker restarts and a Temporal restart on the same database.
 *
 * @throws client errors other than "already started" (Temporal unreachable): the ledgered sink then
 *   sends without dedup.
 */
export function createTemporalAlertLedger(deps: { client: Client; taskQueue: string }): AlertWindowLedger {
  return {
    async claim(kind: string, windowMs: number): Promise<AlertWindowClaim> {
      const workflowId = alertWindowWorkflowId(deps.taskQueue, kind);
      const input: AlertWindowInput = { windowMs };
      try {
        await deps.client.workflow.start(ALERT_WINDOW_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [input],
          workflowExecutionTimeout: windowMs,
        });
        return { isClaimed: true };
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        const { startTime } = await deps.client.workflow.getHandle(workflowId).describe();
        return { isClaimed: false, heldUntilMs: startTime.getTime() + windowMs };
      }
    },
  };
}
