import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { bundleWorkflows, createLocalEnv, createTimeSkippingEnv, uniqueTaskQueue } from './temporal-env.js';

/** Which Temporal a test file runs against: the time-skipping test server, or a real dev server (visibility). */
export type TemporalTestServer = 'time-skipping' | 'local';

/**
 * The one Temporal harness of the workflow tests, after the SDK's own integration-test helpers (`helpers(t)` in
 * sdk-typescript's `packages/test`): one environment per test file and the run's one workflow bundle, a unique task queue
 * per worker, and whatever a test starts (workers, kits, fake servers) closed after that test.
 */
export interface TemporalTestbed {
  /** The file's environment, with the test payload codec and every wa-lake search attribute. */
  readonly env: TestWorkflowEnvironment;
  /** The run's bundle of `workflows/index.ts` (throws when the file asked for none). */
  readonly bundle: WorkflowBundleWithSourceMap;
  /** A task queue no other test uses. */
  taskQueue(prefix?: string): string;
  /** Runs `close` after the current test; closers run last-in, first-out. */
  defer(close: () => unknown): void;
}

/**
 * Registers the `beforeAll`/`afterEach`/`afterAll` hooks of a workflow test file and returns its testbed. Call
 * once at the top level, before the file's own hooks: its `beforeAll` runs first, and the environment is torn
 * down after the file's own `afterAll` hooks (vitest runs after-hooks as a stack).
 */
export function useTemporalTestbed(options: { server?: TemporalTestServer; bundle?: boolean } = {}): TemporalTestbed {
  let env: TestWorkflowEnvironment | undefined;
  let bundle: WorkflowBundleWithSourceMap | undefined;
  let closers: Array<() => unknown> = [];

  beforeAll(async () => {
    const creating = options.server === 'local' ? createLocalEnv() : createTimeSkippingEnv();
    [env, bundle] = await Promise.all([creating, options.bundle === false ? undefined : bundleWorkflows()]);
  });
  afterEach(async () => {
    const closing = closers;
    closers = [];
    for (const close of closing.reverse()) await close();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  const required = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`Temporal testbed: no ${name} (used before beforeAll, or not asked for)`);
    return value;
  };
  return {
    get env() {
      return required(env, 'env');
    },
    get bundle() {
      return required(bundle, 'bundle');
    },
    taskQueue: (prefix) => uniqueTaskQueue(prefix),
    defer(close) {
      closers.push(close);
    },
  };
}
