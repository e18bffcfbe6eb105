import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildWorkflowBundle } from './temporal-env.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * A JSON file holding the run's one bundle of `workflows/index.ts` (a `WorkflowBundleWithSourceMap`), which
     * `bundleWorkflows()` reads: test files share it instead of running webpack once each. Absent in projects
     * without this global setup.
     */
    workflowBundlePath?: string;
  }
}

let dir: string | undefined;

/** Bundles the workflows once per test run; a worker loads the same code whichever file starts it. */
export async function setup(project: TestProject): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-test-bundle-'));
  const path = join(dir, 'workflows-bundle.json');
  writeFileSync(path, JSON.stringify(await buildWorkflowBundle()));
  project.provide('workflowBundlePath', path);
}

export function teardown(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
