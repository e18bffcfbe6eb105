import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { AlertSink } from '../common/alert-sink.js';
import {
  addDeadLetterSignal,
  DEAD_LETTER_WORKFLOW_ID,
  DEAD_LETTER_WORKFLOW_TYPE,
  type DeadLetterEntry,
  type DeadLetterWorkflowInput,
} from '../workflows/contracts.js';
import { SEND_STATUS_DEAD_LETTER_TYPE_PREFIX } from '../workflows/send-contracts.js';

/** Dependencies of the dead-letter activities. */
export interface DeadLetterDeps {
  /** Temporal client on the worker's namespace. */
  client: Client;
  /** Task queue the dead-letter workflow runs on (the worker's own). */
  taskQueue: string;
  /** Start input used only when signal-with-start has to start the workflow (tests lower the threshold). */
  deadLetterStartInput?: DeadLetterWorkflowInput;
  /** When given, each recorded entry raises `events_dead_lettered` (the sink sends one per window). */
  alertSink?: AlertSink;
}

// Signal-with-start can land while the dead-letter run is closing to continue as new: the server then
// answers "already started" for a moment. Asked again shortly, it signals the new run.
const SIGNAL_WITH_START_RACE_RETRIES = 5;
const SIGNAL_WITH_START_RACE_DELAY_MS = 100;

/** Alert kind raised when events are dead-lettered. */
export const DEAD_LETTERED_ALERT_KIND = 'events_dead_lettered';

/**
 * Builds the `recordDeadLetter` activity: signal-with-start of the single dead-letter workflow
 * (`DEAD_LETTER_WORKFLOW_ID`) with one entry. Workflow code cannot signal-with-start, hence an activity;
 * it is idempotent (the workflow keys entries by `eventId`), so activity retries are harmless. Then raises
 * `events_dead_lettered` through the alert sink, which sends one per window.
 * Source: architecture.md §7, ADR 0002.
 *
 * @throws whatever the client throws (retried by the activity retry policy); "already started", which
 *   signal-with-start answers while the run continues as new, is first retried here (up to 5 times,
 *   100 ms doubling).
 */
export function createRecordDeadLetter(deps: DeadLetterDeps): (entry: DeadLetterEntry) => Promise<void> {
  return async function recordDeadLetter(entry: DeadLetterEntry): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await deps.client.workflow.signalWithStart(DEAD_LETTER_WORKFLOW_TYPE, {
          workflowId: DEAD_LETTER_WORKFLOW_ID,
          taskQueue: deps.taskQueue,
          args: [deps.deadLetterStartInput ?? {}],
          signal: addDeadLetterSignal,
          signalArgs: [entry],
        });
        break;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError) || attempt >= SIGNAL_WITH_START_RACE_RETRIES)
          throw err;
        await new Promise((resolve) => setTimeout(resolve, SIGNAL_WITH_START_RACE_DELAY_MS * 2 ** attempt));
      }
    }
    // After the signal: an alert for an entry that is not recorded yet would send people looking for nothing.
    await deps.alertSink?.send({
      kind: DEAD_LETTERED_ALERT_KIND,
      severity: 'error',
      message: entry.type.startsWith(SEND_STATUS_DEAD_LETTER_TYPE_PREFIX)
        ? 'A send API caller’s webhook rejected status webhooks for good; they are dead-lettered. See `wa-lake dlq list`.'
        : 'The ingest API rejected events for good; they are dead-lettered. See `wa-lake dlq list`.',
      details: { httpStatus: entry.httpStatus, type: entry.type },
    });
  };
}
