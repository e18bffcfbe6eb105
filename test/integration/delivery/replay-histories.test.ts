import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleWorkflows, createTimeSkippingEnv } from '../../helpers/temporal-env.js';
import { readHistoryFixture, recordHistories } from '../../helpers/temporal-histories.js';

// Issue #3 item 8: recorded histories of every workflow path replay against the current workflow code,
// so a change that breaks determinism fails the build. Re-record (after an intended, versioned change) with
//   RECORD_HISTORIES=true npx vitest run --project integration test/integration/delivery/replay-histories.test.ts
const HISTORIES_DIR = fileURLToPath(new URL('../../fixtures/histories/', import.meta.url));
const EXPECTED_PATHS = [
  'dead-letter-continued-as-new',
  'deliver-event-auth-blocked-then-delivered',
  'deliver-event-dead-lettered',
  'deliver-event-delivered',
  'deliver-event-misconfigured-then-delivered',
  'deliver-event-transient-then-delivered',
];

let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  bundle = await bundleWorkflows();
  if (process.env['RECORD_HISTORIES'] === 'true') {
    const env = await createTimeSkippingEnv();
    try {
      await recordHistories(env, bundle, HISTORIES_DIR);
    } finally {
      await env.teardown();
    }
  }
});

describe('recorded workflow histories', () => {
  it('cover every workflow path and replay without non-determinism', async () => {
    const files = readdirSync(HISTORIES_DIR)
      .filter((file) => file.endsWith('.json'))
      .sort();
    expect(files.map((file) => file.replace(/\.json$/, ''))).toEqual(EXPECTED_PATHS);
    const histories = files.map((file) => ({
      workflowId: file,
      history: readHistoryFixture(readFileSync(join(HISTORIES_DIR, file), 'utf8')),
    }));
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
