import type { TestProject } from 'vitest/node';
import * as postgres from './postgres-global-setup.js';
import * as workflowBundle from './workflow-bundle-setup.js';

/**
 * The integration project's services, prepared side by side: vitest runs global setup files one after the other,
 * and starting PostgreSQL mostly waits on its processes while webpack bundles the workflows on the other core.
 */
export async function setup(project: TestProject): Promise<void> {
  await Promise.all([postgres.setup(project), workflowBundle.setup(project)]);
}

export async function teardown(): Promise<void> {
  try {
    await postgres.teardown();
  } finally {
    workflowBundle.teardown();
  }
}
