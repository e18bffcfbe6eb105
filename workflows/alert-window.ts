import { sleep } from '@temporalio/workflow';
import type { AlertWindowInput } from './contracts.js';

/**
 * Holds one alert kind's window: while a run with id
 * `alertWindowWorkflowId(taskQueue, kind)` is open, starting another fails with "already started", so
 * only the first of any number of workers (and restarts) sends the alert. It closes when the window
 * ends; the starter also sets the execution timeout to the window, so it closes even with no worker.
 *
 * @param input - `{ windowMs }`, the dedup window in ms (`ALERT_WINDOW_MS`).
 */
export async function alertWindow(input: AlertWindowInput): Promise<void> {
  await sleep(input.windowMs);
}
