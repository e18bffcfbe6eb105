import type { AlertSink } from '../common/alert-sink.js';
import type { PayloadRefusal } from '../common/encryption-codec.js';
import type { Logger } from '../common/logger.js';
import { PAYLOAD_REFUSED_ALERT_KIND } from '../workflows/contracts.js';

export { PAYLOAD_REFUSED_ALERT_KIND };

// A refused workflow task is retried by Temporal for as long as the workflow runs: remember whom we alerted about.
const REMEMBERED_WORKFLOWS = 10_000;

/**
 * The worker's `onRefused` of the payload codec (ADR 0022): a workflow whose input or signal was not
 * written by a `PAYLOAD_ENCRYPTION_KEYS` holder (started by hand with the `temporal` CLI, say) never runs — its
 * workflow task fails at decode, so it stores, dispatches and posts nothing — and this raises one alert naming it
 * per workflow and process, however often Temporal retries the task.
 */
export function createRefusedPayloadAlerter(deps: {
  alertSink: () => AlertSink;
  logger: Logger;
}): (refusal: PayloadRefusal) => void {
  const log = deps.logger.child({ component: 'payload-guard' });
  const alerted = new Set<string>();
  return (refusal) => {
    const workflowId = refusal.workflowId ?? '(unknown)';
    if (alerted.has(workflowId)) return;
    if (alerted.size >= REMEMBERED_WORKFLOWS) alerted.clear();
    alerted.add(workflowId);
    log.error({ workflowId, reason: refusal.reason }, 'refused a payload not written by a key holder');
    deps
      .alertSink()
      .send({
        kind: PAYLOAD_REFUSED_ALERT_KIND,
        severity: 'error',
        message:
          `Workflow ${workflowId} carries a payload the worker refuses (${refusal.reason}): it was not written ` +
          'with PAYLOAD_ENCRYPTION_KEYS, so it does not run. If no wa-lake process started it, it is forged: ' +
          'terminate it (docs/runbook.md, "Securing Temporal").',
        details: { workflowId, reason: refusal.reason },
      })
      .catch((err: unknown) => log.error({ err, workflowId }, 'cannot send alert'));
  };
}
