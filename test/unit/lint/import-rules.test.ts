import { join } from 'node:path';
import { ESLint } from 'eslint';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { importResolverSettings, importRuleConfigs, nodeBuiltinNames, repoRoot } from '../../../eslint-import-rules.js';

// Proof that the folder import rules fail on a wrong import. The rule objects are the ones
// eslint.config.js spreads in; only the type-aware presets are left out, so one ESLint instance lints
// a snippet in well under a second instead of building a TypeScript program.
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({
    cwd: repoRoot,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { 'import-x': importX },
        settings: importResolverSettings,
      },
      ...importRuleConfigs,
    ],
  });
});

/** The distinct rule ids of the messages ESLint reports for `code` written as the file `relativePath`. */
async function ruleIdsFor(relativePath: string, code: string): Promise<Array<string | null>> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, relativePath) });
  return [...new Set((result?.messages ?? []).map((message) => message.ruleId))];
}

describe('folder import rules (eslint-import-rules.js)', () => {
  it.each([
    ['common → collector', 'common/probe.ts', "import { OutboxStore } from '../collector/outbox-store.js';"],
    ['common → dev-stack', 'common/probe.ts', "import { findFreePort } from '../dev-stack/tcp-ports.js';"],
    ['ingest-api → collector', 'ingest-api/probe.ts', "import { OutboxStore } from '../collector/outbox-store.js';"],
    ['ingest-api → worker', 'ingest-api/probe.ts', "import { runWorker } from '../worker/run-worker.js';"],
    ['lake/projections → the lake above it', 'lake/projections/probe.ts', "import { createPool } from '../pool.js';"],
    [
      'lake/projections → lake/events',
      'lake/projections/probe.ts',
      "import { EventsRepository } from '../events/events-repository.js';",
    ],
    ['lake → ingest-api', 'lake/probe.ts', "import { sanitizeRawJson } from '../ingest-api/sanitize.js';"],
    ['lake → workflow code', 'lake/probe.ts', "import { sendMessage } from '../workflows/send-message.js';"],
    [
      'lake → send-contracts (loads the SDK)',
      'lake/probe.ts',
      "import { WA_SEND_STATE } from '../workflows/send-contracts.js';",
    ],
    [
      'ingest-api → a lake internal',
      'ingest-api/probe.ts',
      "import { EventsRepository } from '../lake/events/events-repository.js';",
    ],
    ['codec-server → lake', 'codec-server/probe.ts', "import { createPool } from '../lake/index.js';"],
    ['codec-server → ingest-api', 'codec-server/probe.ts', "import { buildApp } from '../ingest-api/app.js';"],
    ['collector → lake', 'collector/probe.ts', "import { createPool } from '../lake/index.js';"],
    ['worker → lake', 'worker/probe.ts', "import { createPool } from '../lake/index.js';"],
    ['workflows → lake', 'workflows/probe.ts', "import type { EngagementReport } from '../lake/index.js';"],
    ['common → lake', 'common/probe.ts', "import { createPool } from '../lake/index.js';"],
    ['collector → activities', 'collector/probe.ts', "import { createActivities } from '../activities/index.js';"],
    ['collector → ingest-api', 'collector/probe.ts', "import { sanitizeRawJson } from '../ingest-api/sanitize.js';"],
    [
      'collector → workflow code',
      'collector/probe.ts',
      "import { deliverEvent } from '../workflows/deliver-event.js';",
    ],
    [
      'collector/normalize → the collector above it',
      'collector/normalize/probe.ts',
      "import { filterEvent } from '../edge-filter.js';",
    ],
    ['workflows → collector', 'workflows/probe.ts', "import { OutboxStore } from '../collector/outbox-store.js';"],
    ['cli → a collector internal', 'cli/probe.ts', "import { OutboxStore } from '../collector/outbox-store.js';"],
    ['cli → an ingest-api internal', 'cli/probe.ts', "import { buildApp } from '../ingest-api/app.js';"],
    ['cli → a lake internal', 'cli/probe.ts', "import { createPool } from '../lake/pool.js';"],
  ])('rejects %s', async (_label, file, code) => {
    expect(await ruleIdsFor(file, code)).toEqual(['import-x/no-restricted-paths']);
  });

  it.each([
    ['workflows → node:fs', "import { readFileSync } from 'node:fs';"],
    ['workflows → fs', "import { readFileSync } from 'fs';"],
    ['workflows → fs/promises', "import { readFile } from 'fs/promises';"],
    ['workflows → node:test', "import { test } from 'node:test';"],
    ['workflows → a common/ value', "import { createRootLogger } from '../common/logger.js';"],
    ['workflows → an activity value', "import { createActivities } from '../activities/index.js';"],
  ])('rejects %s', async (_label, code) => {
    expect(await ruleIdsFor('workflows/probe.ts', code)).toEqual(['no-restricted-imports']);
  });

  it.each([
    ['common → common', 'common/probe.ts', "import { createRootLogger } from './logger.js';"],
    [
      'common → workflows/contracts',
      'common/probe.ts',
      "import { DEFAULT_TASK_QUEUE } from '../workflows/contracts.js';",
    ],
    ['ingest-api → common', 'ingest-api/probe.ts', "import type { JsonValue } from '../common/json-value.js';"],
    [
      'lake/events → lake/projections',
      'lake/events/probe.ts',
      "import { extractProjectionFacts } from '../projections/extract-projection-facts.js';",
    ],
    ['lake/projections → itself', 'lake/projections/probe.ts', "import { toEpochMs } from './occurred-at.js';"],
    ['lake → send-states', 'lake/probe.ts', "import { SEND_STATES } from '../workflows/send-states.js';"],
    ['ingest-api → lake/index', 'ingest-api/probe.ts', "import { createPool } from '../lake/index.js';"],
    [
      'codec-server → common',
      'codec-server/probe.ts',
      "import { EncryptionCodec } from '../common/encryption-codec.js';",
    ],
    ['cli → lake/index', 'cli/probe.ts', "import { createPool } from '../lake/index.js';"],
    [
      'collector → workflows/contracts',
      'collector/probe.ts',
      "import { DEFAULT_TASK_QUEUE } from '../workflows/contracts.js';",
    ],
    ['workflows → @temporalio/workflow', 'workflows/probe.ts', "import { sleep } from '@temporalio/workflow';"],
    ['workflows → activity types', 'workflows/probe.ts', "import type { Activities } from '../activities/index.js';"],
    [
      'collector/normalize → itself',
      'collector/normalize/probe.ts',
      "import { lenientJson } from './lenient-json.js';",
    ],
    ['cli → collector/index', 'cli/probe.ts', "import { OutboxStore } from '../collector/index.js';"],
    ['cli → dev-stack', 'cli/probe.ts', "import { findFreePort } from '../dev-stack/tcp-ports.js';"],
  ])('allows %s', async (_label, file, code) => {
    expect(await ruleIdsFor(file, code)).toEqual([]);
  });

  it('bans every Node built-in in workflow code, spelled both ways, from node:module', () => {
    expect(nodeBuiltinNames).toEqual(
      expect.arrayContaining([
        'fs',
        'node:fs',
        'fs/promises',
        'node:fs/promises',
        'worker_threads',
        'node:worker_threads',
      ])
    );
  });
});
