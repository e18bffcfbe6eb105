import type { Client } from '@temporalio/client';
import {
  addDeadLetterSignal,
  DEAD_LETTER_WORKFLOW_ID,
  DEAD_LETTER_WORKFLOW_TYPE,
  type DeadLetterEntry,
  type DeadLetterWorkflowInput,
} from '../workflows/contracts.js';

/** Dependencies of the dead-letter activities. */
export interface DeadLetterDeps {
  /** Temporal client on the worker's namespace. */
  client: Client;
  /** Task queue the dead-letter workflow runs on (the worker's own). */
  taskQueue: string;
  /** Start input used only when signal-with-start has to start the workflow (tests lower the threshold). */
  deadLetterStartInput?: DeadLetterWorkflowInput;
}

/**
 * Builds the `recordDeadLetter` activity: signal-with-start of the single dead-letter workflow
 * (`DEAD_LETTER_WORKFLOW_ID`) with one entry. Workflow code cannot signal-with-start, hence an activity;
 * it is idempotent (the workflow keys entries by `eventId`), so activity retries are harmless.
 * Source: DESIGN §7, issue #3 item 2.
 *
 * @throws whatever the client throws (retried by the activity retry policy).
 */
export function createRecordDeadLetter(deps: DeadLetterDeps): (entry: DeadLetterEntry) => Promise<void> {
  return async function recordDeadLetter(entry: DeadLetterEntry): Promise<void> {
    await deps.client.workflow.signalWithStart(DEAD_LETTER_WORKFLOW_TYPE, {
      workflowId: DEAD_LETTER_WORKFLOW_ID,
      taskQueue: deps.taskQueue,
      args: [deps.deadLetterStartInput ?? {}],
      signal: addDeadLetterSignal,
      signalArgs: [entry],
    });
  };
}
