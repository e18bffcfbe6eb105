import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { resolveTestServerPath } from '../../dev-stack/temporal-binaries.js';
import { loadWorkerConfig, type WorkerConfig } from '../../worker/config.js';
import { installRuntimeLoggerOnce } from '../../worker/runtime-logger.js';
import { resolveWorkflowsPath } from '../../worker/workflows-path.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../workflows/contracts.js';
import { silentLogger } from './silent-logger.js';

/** A 32-character test secret (the ingest needs ≥ 16). */
export const TEST_SECRET = 'test-secret-0123456789abcdefghij';

// temporal.api.enums.v1.IndexedValueType wire values (KEYWORD = 2, INT = 3).
const INDEXED_VALUE_TYPE = { Keyword: 2, Int: 3 } as const;

/**
 * The time-skipping test server from the project's binary (one per test file), with the wa-lake search
 * attributes registered through the operator API (the test server rejects upserts of unknown ones).
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installRuntimeLoggerOnce(silentLogger());
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: resolveTestServerPath(process.env) } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      SEARCH_ATTRIBUTE_DEFINITIONS.map((definition) => [definition.name, INDEXED_VALUE_TYPE[definition.cliType]])
    ),
  });
  return env;
}

/** Bundles `workflows/index.ts` once per test file. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: resolveWorkflowsPath(),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
}

/** A unique task queue per test. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** Worker config through the real `loadWorkerConfig`, with test values (short HTTP timeout). */
export function testWorkerConfig(
  overrides: { WEBHOOK_URL: string; TEMPORAL_TASK_QUEUE: string } & Record<string, string>
): WorkerConfig {
  return loadWorkerConfig({
    WHATSAPP_WEBHOOK_SECRET: TEST_SECRET,
    HTTP_TIMEOUT_MS: '1000',
    WORKER_SHUTDOWN_GRACE_TIME_MS: '5000',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
}

/** A JSON body like the collector's, for `DeliverEventInput.body`. */
export function sampleBody(eventId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'messages.upsert',
    chat_jid: '120363000000000001@g.us',
    payload: { key: { id: eventId } },
    captured_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  });
}
