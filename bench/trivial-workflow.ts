/**
 * The dev server's ceiling workload for `bench/delivery-latency-and-burst.ts` (ADR 0008): a
 * trivial workflow with one regular no-op activity, bundled by the bench's baseline worker.
 */
import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '1 minute' });

/** Runs one no-op activity and completes. */
export async function trivialWorkflow(): Promise<void> {
  await noop();
}
