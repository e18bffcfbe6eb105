import type { WorkerOptions } from '@temporalio/worker';

/** Slot and poller settings of the delivery worker; the bench runs its baseline worker with the same. */
export type WorkerTuning = Pick<
  WorkerOptions,
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentLocalActivityExecutions'
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxConcurrentWorkflowTaskPolls'
  | 'maxConcurrentActivityTaskPolls'
>;

/**
 * Slots and pollers of the delivery worker (ADR 0008). A delivery is one
 * workflow task that runs the first POST as a local activity, so workflow-task and local-activity
 * slots go together; eager workflow start needs a free workflow-task slot at start time, or Temporal
 * falls back to the task queue. Values measured with `npm run bench` on a 2-core box.
 */
export const DELIVERY_WORKER_TUNING: WorkerTuning = {
  maxConcurrentWorkflowTaskExecutions: 40,
  maxConcurrentLocalActivityExecutions: 40,
  maxConcurrentActivityTaskExecutions: 100,
  maxConcurrentWorkflowTaskPolls: 10,
  maxConcurrentActivityTaskPolls: 10,
};
